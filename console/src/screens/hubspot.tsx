import { Card, Page } from '../ui.js';

// TODO(issue 20, HubSpot screen): the HubSpot integration's routes are not on main yet (a
// colleague's branch adds them). When they land: connect button (install flow), installs with
// status, auto-send template editor with preview, breaker state, today's HubSpot call counts —
// each through @blueline/sdk.
export function HubSpot() {
  return (
    <Page title="HubSpot" subtitle="CRM integration">
      <Card title="Not available yet">
        <p className="muted">This service does not expose the HubSpot integration's API yet. When it does, connecting HubSpot, its installs, the auto-send template and call counts appear here.</p>
      </Card>
    </Page>
  );
}
