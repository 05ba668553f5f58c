import { ApiError } from '../../errors/registry.js';
import { DriverFailure } from '../../drivers/types.js';

/** A driver's typed failure in the spec's terms; anything else propagates as internal. */
export function toApiError(err: unknown, feature = 'this feature'): unknown {
  if (!(err instanceof DriverFailure)) return err;
  switch (err.kind) {
    case 'unreachable':
      return new ApiError(4001, `delivery failed downstream: ${err.message}`);
    case 'rejected':
      return new ApiError(4001, `rejected downstream: ${err.message}`);
    case 'not_found':
      return new ApiError(4001, `no longer available downstream: ${err.message}`);
    case 'line_down':
      return new ApiError(3002, `the phone line is unavailable: ${err.message}`);
    case 'unsupported':
      return new ApiError(4099, `${feature} is not supported on this line: ${err.message}`, { http: 501 });
  }
}

export async function viaDriver<T>(work: () => Promise<T>, feature?: string): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toApiError(err, feature);
  }
}
