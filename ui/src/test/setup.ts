import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// Pages are loaded when first shown (components/LazyPart.tsx); under vitest the first load of a
// page compiles its modules then, which on a busy 2-core machine can pass the default second.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
  window.sessionStorage.clear();
});
