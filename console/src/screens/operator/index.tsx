/** The operator's screens, one file each: tenants, accounts, lines, and the simulator. */
import { useParams } from '@tanstack/react-router';
import { Tenants } from './tenants.js';
import { Accounts } from './accounts.js';
import { Lines } from './lines.js';
import { Simulator } from './simulator.js';

export default function Operator() {
  const { section } = useParams({ strict: false }) as { section: string };
  if (section === 'accounts') return <Accounts />;
  if (section === 'lines') return <Lines />;
  if (section === 'simulator') return <Simulator />;
  return <Tenants />;
}
