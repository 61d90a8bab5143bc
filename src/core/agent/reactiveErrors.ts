// Which API refusals the reactive stage can recover from (issue #13, class 7). "Prompt is too long"
// counts tokens; a 413 `request_too_large` counts bytes and comes before any token count, so it carries
// no numbers. Both mean "send less", so both go to the same recovery; the 413 is passed on as a
// PromptTooLongError without numbers, its status 413 telling the recovery to shrink the largest blocks.
import { PromptTooLongError, type ModelError } from '../llm/errors';

export const REQUEST_TOO_LARGE_STATUS = 413;

/** The error as the reactive stage takes it, or undefined when sending less would not help. */
export function recoverableTooLong(error: ModelError | undefined): PromptTooLongError | undefined {
  if (!error) return undefined;
  if (error instanceof PromptTooLongError) return error;
  if (error.status !== REQUEST_TOO_LARGE_STATUS) return undefined;
  return new PromptTooLongError(error.message, undefined, undefined, {
    status: REQUEST_TOO_LARGE_STATUS,
    ...(error.apiMessage !== undefined ? { apiMessage: error.apiMessage } : {}),
    ...(error.requestId !== undefined ? { requestId: error.requestId } : {}),
    cause: error,
  });
}

/** Whether the API refused the request's size in bytes (not its tokens). */
export function isRequestTooLarge(error: PromptTooLongError): boolean {
  return error.status === REQUEST_TOO_LARGE_STATUS;
}
