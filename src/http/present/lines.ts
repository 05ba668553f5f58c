/** Phone lines, as the tenant API and the admin API show them. */
import { isoAt } from '../../clock.js';
import type { PhoneLine as PhoneLineView } from '../../contract/phone-numbers-list.js';
import type { AdminPhoneLine } from '../../contract/admin-line.js';
import { isLineCapability } from '../../domain/lines/vocabulary.js';
import { sendsFrom } from '../../domain/lines/service.js';
import type { PhoneLine } from '../../store/index.js';

/** The spec's phone line resource: no driver details, no secrets. */
export function publicPhoneLine(l: PhoneLine): PhoneLineView {
  return {
    id: l.id,
    phone_line_id: l.id,
    phone_number: l.phone_number,
    service: l.service,
    // The spec: "a sendable line has true". An active line without `send` refuses every send (3002).
    is_active: sendsFrom(l),
    capabilities: l.capabilities.filter(isLineCapability),
  };
}

/** The operator's view: adds tenant and driver, but driver_config keys only (values may be passwords). */
export function adminPhoneLine(l: PhoneLine, tenantSlug: string): AdminPhoneLine {
  return {
    ...publicPhoneLine(l),
    // The operator's switch as set (PATCH is_active), whatever the capabilities say.
    is_active: l.is_active,
    tenant: tenantSlug,
    driver: l.driver,
    driver_config_keys: Object.keys(l.driver_config).sort(),
    created_at: isoAt(l.created_at),
  };
}
