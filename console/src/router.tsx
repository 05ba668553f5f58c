import { createRootRoute, createRoute, createRouter, Link, Navigate, Outlet, useNavigate, useRouterState } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Component, lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import type { ConsoleSession } from '@blueline/sdk';
import { BlueLineError, client, recheckSession, setSessionChecker, tellOtherTabs, type SessionVerdict } from './api.js';
import { SessionContext, useSession } from './session.js';
import { SignIn } from './screens/sign-in.js';
import { Overview } from './screens/overview.js';
import { Notice, Page, Spinner } from './ui.js';
import { screenOf, useFocusOnNavigate } from './focus-on-navigate.js';

// Screens past the first one load on demand: the overview's first load stays small.
const Conversations = lazy(() => import('./screens/conversations.js').then((m) => ({ default: m.Conversations })));
const Settings = lazy(() => import('./screens/settings.js').then((m) => ({ default: m.Settings })));
const Developers = lazy(() => import('./screens/developers.js').then((m) => ({ default: m.Developers })));
const Events = lazy(() => import('./screens/events.js').then((m) => ({ default: m.Events })));
const EventDetail = lazy(() => import('./screens/event-detail.js').then((m) => ({ default: m.EventDetail })));
const HubSpot = lazy(() => import('./screens/hubspot.js').then((m) => ({ default: m.HubSpot })));
const HubSpotPortal = lazy(() => import('./screens/hubspot-portal.js').then((m) => ({ default: m.HubSpotPortal })));
const Operator = lazy(() => import('./screens/operator/index.js'));

function Shell() {
  const qc = useQueryClient();
  const session = useQuery({
    queryKey: ['session'],
    queryFn: () => client.session.current(),
    retry: false,
    staleTime: Infinity,
  });
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  useFocusOnNavigate(session.isPending ? null : session.isError || !session.data ? 'sign-in' : screenOf(pathname), pathname);
  const navigate = useNavigate();
  // A session that ended while a screen was open (it expired, or signed out in another tab): the
  // first 401 is checked against the session itself, and the sign-in comes back on the same
  // address, so signing in again returns to the screen. The last session's data is dropped.
  const [ended, setEnded] = useState<ConsoleSession['kind'] | null>(null);
  // This browser signed in to another project (or as the operator) in another tab: one cookie,
  // so this tab now acts as that session. It shows that session's console from its start,
  // never the other project's data under this one's name.
  const [switched, setSwitched] = useState<{ to: ConsoleSession; unsaved: boolean } | null>(null);
  useEffect(() => {
    const dropData = () => {
      qc.getMutationCache().clear();
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    };
    const unregister = setSessionChecker(async (why): Promise<SessionVerdict> => {
      const was = qc.getQueryData<ConsoleSession | null>(['session']);
      if (!was) return 'unknown';
      let now: ConsoleSession;
      try {
        now = await client.session.current();
      } catch (err) {
        if (!(err instanceof BlueLineError && err.status === 401)) return 'unknown';
        setEnded(was.kind);
        setSwitched(null);
        qc.setQueryData(['session'], null);
        setTimeout(dropData, 0);
        return 'ended';
      }
      if (identity(now) === identity(was)) {
        qc.setQueryData(['session'], now); // its CSRF token is now this tab's
        return 'same';
      }
      dropData();
      qc.setQueryData(['session'], now);
      // A refused CSRF token: the change the user made was refused (nothing was done) and is not sent again.
      setSwitched({ to: now, unsaved: why === 'csrf' });
      void navigate({ to: '/' });
      return 'changed';
    });
    // Back to this tab (another may have signed in or out meanwhile): the session is asked first.
    const onVisible = () => void (document.visibilityState === 'visible' && recheckSession('focus'));
    const onFocus = () => void recheckSession('focus');
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('focus', onFocus);
    return () => {
      unregister();
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('focus', onFocus);
    };
  }, [qc, navigate]);
  if (session.isPending) return <div className="center"><Spinner /></div>;
  if (session.isError || !session.data)
    return (
      <SignIn
        ended={ended}
        onSignedIn={(s) => {
          setEnded(null);
          setSwitched(null);
          qc.setQueryData(['session'], s);
          tellOtherTabs();
        }}
      />
    );
  const signOut = async () => {
    await client.session.signOut().catch(() => {});
    tellOtherTabs();
    qc.clear();
    qc.setQueryData(['session'], null);
    window.location.assign('/console/');
  };
  return (
    // Keyed by the session: another session's console starts afresh (no state of the last one's screens).
    <SessionContext.Provider key={identity(session.data)} value={{ session: session.data, signOut }}>
      <div className="app">
        <a className="skip-link" href="#main">Skip to content</a>
        <Sidebar />
        <main className="main" id="main" tabIndex={-1}>
          {switched && identity(switched.to) === identity(session.data) && (
            <div className="switched">
              <Notice kind="warn">
                This browser signed in {switched.to.kind === 'operator' ? 'as the operator' : <>to <strong>{switched.to.tenant?.name}</strong> ({switched.to.tenant?.slug})</>} in
                another tab, so this tab now shows {switched.to.kind === 'operator' ? "the operator's console" : 'that project'} too.
                {switched.unsaved && ' Your last change was not saved.'}
              </Notice>
              <button type="button" className="btn small" onClick={() => setSwitched(null)}>Dismiss</button>
            </div>
          )}
          <ScreenBoundary resetKey={pathname}>
            <Suspense fallback={<div className="center"><Spinner /></div>}>
              <Outlet />
            </Suspense>
          </ScreenBoundary>
        </main>
      </div>
    </SessionContext.Provider>
  );
}

/**
 * A screen that fails to render, its code included (a screen's code loads on first use: the
 * service may not answer then, or an upgrade has replaced the file this page knew), fails in its
 * own place: the navigation stays, and another screen can be opened. Cleared on the next address.
 */
class ScreenBoundary extends Component<{ resetKey: string; children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override componentDidUpdate(prev: { resetKey: string }) {
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }
  override render() {
    return this.state.error ? <ScreenFailed error={this.state.error} /> : this.props.children;
  }
}

function ScreenFailed({ error }: { error: unknown }) {
  // Browsers word it differently: "Failed to fetch dynamically imported module", "Importing a module script failed", …
  const notLoaded = error instanceof Error && /dynamically imported module|module script|Loading chunk|error loading/i.test(error.message);
  return (
    <Page title="This screen could not be shown" subtitle={notLoaded ? 'Its code did not load.' : undefined}>
      <Notice kind="warn">
        {notLoaded
          ? 'The service did not answer, or it was upgraded since this page was opened. Reload the console (the other screens still work).'
          : `Something failed on this screen: ${error instanceof Error ? error.message : String(error)}`}
      </Notice>
      <p>
        <button type="button" className="btn" onClick={() => window.location.reload()}>Reload the console</button>
      </p>
    </Page>
  );
}

/** Which session a tab shows: its kind and project (a new sign-in to the same project is the same). */
const identity = (s: ConsoleSession) => `${s.kind}:${s.tenant?.id ?? ''}`;

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
  if (session.kind === 'operator') return <Navigate to="/operator/tenants" replace />;
  return <Overview />;
}

/** An address the console has no screen for. */
function NotFound() {
  return (
    <Page title="Page not found" subtitle="The console has no screen at this address.">
      <p>
        <Link to="/" className="btn">Go to the start</Link>
      </p>
    </Page>
  );
}

/**
 * A screen for the other kind of session (a project's screen for the operator, or the
 * reverse): said in words, instead of the API's refusal on every card.
 */
function Only({ kind, children }: { kind: ConsoleSession['kind']; children: ReactNode }) {
  const { session } = useSession();
  if (session.kind === kind) return <>{children}</>;
  return (
    <Page title="Not available" subtitle={kind === 'operator' ? "This is an operator's screen; you are signed in to a project." : "This is a project's screen; you are signed in as the operator."}>
      <p>
        <Link to="/" className="btn">Go to your start screen</Link>
      </p>
    </Page>
  );
}

const rootRoute = createRootRoute({ component: Shell });
const r = (path: string, component: () => ReactNode) => createRoute({ getParentRoute: () => rootRoute, path, component });

const project = (screen: ReactNode) => () => <Only kind="tenant">{screen}</Only>;

// One Conversations screen for the list and every chat: picking a chat keeps the list (and the
// focus on the chat picked) instead of drawing the screen anew.
const conversations = r('/conversations', project(<Conversations />));
const chat = (path: string) => createRoute({ getParentRoute: () => conversations, path, component: () => null });

const routeTree = rootRoute.addChildren([
  r('/', Home),
  conversations.addChildren([chat('/'), chat('$chatId')]),
  r('/settings', project(<Settings />)),
  r('/developers', project(<Developers />)),
  r('/events', project(<Events />)),
  r('/events/$eventId', project(<EventDetail />)),
  r('/hubspot', project(<HubSpot />)),
  r('/hubspot/$portalId', project(<HubSpotPortal />)),
  r('/operator/$section', () => <Only kind="operator"><Operator /></Only>),
]);

export const router = createRouter({
  routeTree,
  basepath: '/console',
  defaultPreload: 'intent',
  defaultNotFoundComponent: NotFound,
  // The router's own boundary (around each screen) shows the same page, inside the console.
  defaultErrorComponent: ({ error }) => <ScreenFailed error={error} />,
});
