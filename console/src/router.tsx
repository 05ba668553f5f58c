import { createRootRoute, createRoute, createRouter, Link, Outlet, useNavigate } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, type ReactNode } from 'react';
import { client } from './api.js';
import { SessionContext, useSession } from './session.js';
import { SignIn } from './screens/sign-in.js';
import { Overview } from './screens/overview.js';
import { Spinner } from './ui.js';

// Screens past the first one load on demand: the overview's first load stays small.
const Conversations = lazy(() => import('./screens/conversations.js').then((m) => ({ default: m.Conversations })));
const Settings = lazy(() => import('./screens/settings.js').then((m) => ({ default: m.Settings })));
const Developers = lazy(() => import('./screens/developers.js').then((m) => ({ default: m.Developers })));
const Events = lazy(() => import('./screens/events.js').then((m) => ({ default: m.Events })));
const EventDetail = lazy(() => import('./screens/event-detail.js').then((m) => ({ default: m.EventDetail })));
const HubSpot = lazy(() => import('./screens/hubspot.js').then((m) => ({ default: m.HubSpot })));
const Operator = lazy(() => import('./screens/operator/index.js'));

function Shell() {
  const qc = useQueryClient();
  const session = useQuery({
    queryKey: ['session'],
    queryFn: () => client.session.current(),
    retry: false,
    staleTime: Infinity,
  });
  if (session.isPending) return <div className="center"><Spinner /></div>;
  if (session.isError || !session.data) return <SignIn onSignedIn={(s) => qc.setQueryData(['session'], s)} />;
  const signOut = async () => {
    await client.session.signOut().catch(() => {});
    qc.clear();
    qc.setQueryData(['session'], null);
    window.location.assign('/console/');
  };
  return (
    <SessionContext.Provider value={{ session: session.data, signOut }}>
      <div className="app">
        <Sidebar />
        <main className="main" id="main">
          <Suspense fallback={<div className="center"><Spinner /></div>}>
            <Outlet />
          </Suspense>
        </main>
      </div>
    </SessionContext.Provider>
  );
}

function NavLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Link to={to} className="nav-link" activeProps={{ className: 'nav-link active', 'aria-current': 'page' }} activeOptions={{ exact: to === '/' }}>
      {children}
    </Link>
  );
}

function Sidebar() {
  const { session, signOut } = useSession();
  // The HubSpot screen is listed only when the service has the integration (its API answers 404 otherwise).
  const hubspot = useQuery({ queryKey: ['hubspot'], queryFn: () => client.hubspot.status(), enabled: session.kind === 'tenant', staleTime: 60_000, retry: false });
  return (
    <nav className="sidebar" aria-label="Console">
      <div className="brand">
        <span className="logo" aria-hidden="true">◆</span> Blueline
      </div>
      <div className="who">
        <div className="who-name">{session.kind === 'operator' ? 'Operator' : session.tenant?.name}</div>
        <div className="who-sub">{session.kind === 'operator' ? 'all tenants' : session.tenant?.slug}</div>
      </div>
      {session.kind === 'tenant' ? (
        <ul>
          <li><NavLink to="/">Overview</NavLink></li>
          <li><NavLink to="/conversations">Conversations</NavLink></li>
          <li><NavLink to="/events">Events</NavLink></li>
          <li><NavLink to="/developers">Developers</NavLink></li>
          <li><NavLink to="/settings">Settings</NavLink></li>
          {hubspot.data && <li><NavLink to="/hubspot">HubSpot</NavLink></li>}
        </ul>
      ) : (
        <ul>
          <li><NavLink to="/operator/tenants">Tenants</NavLink></li>
          <li><NavLink to="/operator/accounts">Accounts</NavLink></li>
          <li><NavLink to="/operator/lines">Lines</NavLink></li>
          <li><NavLink to="/operator/simulator">Simulator</NavLink></li>
        </ul>
      )}
      <button type="button" className="btn ghost signout" onClick={() => void signOut()}>
        Sign out
      </button>
    </nav>
  );
}

function Home() {
  const { session } = useSession();
  const navigate = useNavigate();
  if (session.kind === 'operator') {
    void navigate({ to: '/operator/tenants', replace: true });
    return null;
  }
  return <Overview />;
}

const rootRoute = createRootRoute({ component: Shell });
const r = (path: string, component: () => ReactNode) => createRoute({ getParentRoute: () => rootRoute, path, component });

const routeTree = rootRoute.addChildren([
  r('/', Home),
  r('/conversations', () => <Conversations />),
  r('/conversations/$chatId', () => <Conversations />),
  r('/settings', () => <Settings />),
  r('/developers', () => <Developers />),
  r('/events', () => <Events />),
  r('/events/$eventId', () => <EventDetail />),
  r('/hubspot', () => <HubSpot />),
  r('/operator/$section', () => <Operator />),
]);

export const router = createRouter({ routeTree, basepath: '/console', defaultPreload: 'intent' });
