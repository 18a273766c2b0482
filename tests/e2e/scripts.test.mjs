// End to end: a script in the chat (contract section 11). The scripted model asks for
// `execute_code`; running code asks first (approvals mode "ask"), so the card shows the code to
// read before Allow. Then real Python runs it: it calls a tool, prints, and saves a picture, and
// the card shows what it printed and the picture, then the model's reply. "Run again" runs it
// once more with look-ups only.
//
// The processes and the browser are set up by ./support.mjs.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { scriptedWorldForTests, screenshots, openChat, sendMessage } from './support.mjs';

// A 2x2 PNG from the standard library alone, a tool call, and a printed total.
const CODE = [
  'import struct, zlib',
  'def chunk(kind, data):',
  "    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))",
  "rows = b''.join(b'\\x00' + b'\\xff\\x00\\x00' * 2 for _ in range(2))",
  "png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 2, 2, 8, 2, 0, 0, 0))",
  "png += chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')",
  "open('dot.png', 'wb').write(png)",
  'now = tools.time_now()',
  "print('Total:', 420 + 380.5 + 510)",
  "print('asked the time:', 'iso' in now or 'time' in now)",
].join('\n');

const REPLY = 'Your three months add up to 1310.5.';

const SCRIPT = [
  { parts: [{ tool_call: { name: 'execute_code', arguments: { code: CODE, purpose: 'Add up my spending' } } }] },
  { text: REPLY },
  { text: 'Spending total' },
];

const world = scriptedWorldForTests('scripts', SCRIPT);

describe('Scripts in the chat', () => {
  test('a script asks first, runs with real Python, and shows its output, its picture and Run again', async () => {
    const { page, ready } = world;
    await openChat(page, ready.web_url);
    await sendMessage(page, 'Add up 420, 380.5 and 510 with a script');

    const card = page.getByTestId('tool-card');
    await card.getByText('Script: Add up my spending').waitFor();
    // Before anything runs, the code is open to read.
    const code = card.getByTestId('script-code');
    await code.waitFor();
    assert.equal(await code.textContent(), CODE);
    await page.screenshot({ path: join(screenshots, 'chat-script-approval.png') });
    await card.getByTestId('approval-card').getByRole('button', { name: 'Allow', exact: true }).click();

    const printed = card.getByTestId('script-stdout').first();
    await printed.waitFor();
    assert.equal(await printed.textContent(), 'Total: 1310.5\nasked the time: True\n');
    await card.getByText('1 tool use', { exact: false }).waitFor();
    const picture = card.getByTestId('tool-picture');
    await picture.waitFor();
    const size = await picture.evaluate(async (img) => {
      await img.decode();
      return [img.naturalWidth, img.naturalHeight];
    });
    assert.deepEqual(size, [2, 2], 'the PNG the script wrote, read back through the API');
    await page.getByText(REPLY).waitFor();

    const again = card.getByTestId('script-again');
    await again.getByRole('button', { name: 'Run again' }).click();
    await again.getByText('Ran again').waitFor();
    assert.equal(await again.getByTestId('script-stdout').textContent(), 'Total: 1310.5\nasked the time: True\n');
    await page.screenshot({ path: join(screenshots, 'chat-script.png') });

    const files = await world.api('GET', '/api/files');
    const saved = files.filter((f) => /^outputs\/[^/]+\/dot\.png$/.test(f.name));
    assert.equal(saved.length, 2, `one picture per run: ${JSON.stringify(files)}`);
    assert.deepEqual(world.pageErrors, []);
  });
});
