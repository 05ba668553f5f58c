/** A phone line as the operator sees it: the tenant's view plus tenant and driver (never driver_config values). */
import { Type, type Static } from 'typebox';
import { DateTime } from './common.js';
import { PhoneLine } from './phone-numbers-list.js';
import { LINE_CAPABILITIES, LINE_DRIVERS } from '../domain/lines/vocabulary.js';

export const LineDriver = Type.Enum(LINE_DRIVERS, { type: 'string' });

export const AdminPhoneLine = Type.Object({
  ...PhoneLine.properties,
  is_active: Type.Boolean({ description: "the operator's switch as set; the tenant's view also says false for a line without `send`" }),
  tenant: Type.String({ description: 'the tenant slug' }),
  driver: Type.String({ description: 'simulator | bluebubbles' }),
  driver_config_keys: Type.Array(Type.String(), { description: 'values are never shown' }),
  created_at: DateTime(),
});
export type AdminPhoneLine = Static<typeof AdminPhoneLine>;

/** The fields a line is created with; all optional on a change. */
export const LineFields = {
  driver: LineDriver,
  driver_config: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'the driver\'s settings (bluebubbles: url, password); checked when saved (1002)' })),
  capabilities: Type.Optional(
    Type.Array(Type.Enum(LINE_CAPABILITIES, { type: 'string' }), { maxItems: 20, description: 'without `send`, nothing goes out from the line' }),
  ),
  is_active: Type.Optional(Type.Boolean()),
};

export const LineParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const OneLine = Type.Object({ phone_line: AdminPhoneLine });
export type OneLine = Static<typeof OneLine>;
