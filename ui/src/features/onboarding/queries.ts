// The first launch's form: saving it shows the app at once.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Bootstrap, OnboardingRequest } from '../../api';
import { useApi } from '../../api/context';
import { toApiError, type ApiError } from '../../api/errors';
import { queryKeys } from '../../api/queries';

export function useOnboarding() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<unknown, ApiError, OnboardingRequest>({
    mutationFn: (body) => api.onboarding(body).catch((e: unknown) => Promise.reject(toApiError(e))),
    onSuccess: async (_res, body) => {
      // Show the app at once, then fetch what the engine made of it.
      qc.setQueryData<Bootstrap>(queryKeys.bootstrap, (b) =>
        b
          ? {
              ...b,
              assistant: {
                ...b.assistant,
                name: body.assistant_name || b.assistant.name,
                user_name: body.user_name,
                timezone: body.timezone ?? b.assistant.timezone,
                location: body.location ?? b.assistant.location,
                onboarding_complete: true,
              },
            }
          : b,
      );
      await qc.invalidateQueries({ queryKey: queryKeys.bootstrap });
    },
  });
}
