import { DomainError } from '../../errors/registry.js';
import { DriverFailure } from '../../drivers/types.js';

/** A driver's typed failure in the spec's terms; anything else propagates as it is (internal). */
export function fromDriverFailure(err: unknown, feature = 'this feature'): unknown {
  if (!(err instanceof DriverFailure)) return err;
  switch (err.kind) {
    case 'unreachable':
      return new DomainError(4001, `delivery failed downstream: ${err.message}`);
    case 'rejected':
      return new DomainError(4001, `rejected downstream: ${err.message}`);
    case 'not_found':
      return new DomainError(4001, `no longer available downstream: ${err.message}`);
    case 'line_down':
      return new DomainError(3002, `the phone line is unavailable: ${err.message}`);
    case 'ambiguous':
      return new DomainError(3002, `the phone line did not answer in time: ${err.message}`);
    case 'unsupported':
      return new DomainError(4099, `${feature} is not supported on this line: ${err.message}`);
  }
}

export async function viaDriver<T>(work: () => Promise<T>, feature?: string): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw fromDriverFailure(err, feature);
  }
}
