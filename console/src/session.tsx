/** The signed-in session: fetched once (its CSRF token goes to the SDK's memory only). */
import { createContext, useContext } from 'react';
import type { ConsoleSession } from '@blueline/sdk';

export const SessionContext = createContext<{ session: ConsoleSession; signOut: () => Promise<void> } | null>(null);

export function useSession() {
  const s = useContext(SessionContext);
  if (!s) throw new Error('no session');
  return s;
}
