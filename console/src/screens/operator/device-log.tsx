/** A row of the simulated device's log: when, its kind, to whom and what (device-log-words.ts); every field on hover. */
import { Badge, time } from '../../ui.js';
import { describeEntry, plainFields, type DeviceLogEntry, type SentMessage } from './device-log-words.js';

export function DeviceLogRow({ entry, byGuid }: { entry: DeviceLogEntry; byGuid: Map<string, SentMessage> }) {
  const { to, words } = describeEntry(entry, byGuid);
  return (
    <li className="devlog-row" data-kind={entry.kind}>
      <span className="mono muted small">{time(entry.at)}</span>
      <Badge>{entry.kind}</Badge>
      <span className="ellipsis" title={plainFields(entry, ['id']).join('\n')}>
        {to && <span className="mono">{to}</span>} <span>{to ? '→ ' : ''}{words}</span>
      </span>
    </li>
  );
}
