/**
 * After a move to another screen, focus goes to its main heading, so a screen reader reads
 * where the user now is and Tab starts from the new content, not from a link that was replaced.
 * Never before the user has done anything on the page (a first load, and its redirects, start
 * at the top as any page does), nor when only the query or the open chat changes (the same
 * screen: filters, paging, a chat picked), unless that move hid what had the focus.
 */
import { useEffect, useRef } from 'react';

/** The screen an address shows: a chat is part of the Conversations screen. */
export const screenOf = (pathname: string) => pathname.replace(/^(.*\/conversations)\/.*$/, '$1');

const WAIT_MS = 5_000;

/** Focus was dropped: on nothing, or on something the move hid (a chat list at phone width). */
const focusLost = () => {
  const a = document.activeElement;
  return !a || a === document.body || (a instanceof HTMLElement && a.offsetParent === null && getComputedStyle(a).position !== 'fixed');
};

const focusHeading = (h: HTMLElement) => {
  if (!h.hasAttribute('tabindex')) h.setAttribute('tabindex', '-1');
  h.focus();
};

/**
 * `screen`: what is shown (an address's screen, or 'sign-in'); null while nothing is yet.
 * `address`: where in it; a move within a screen that hid the focused element (a chat picked
 * at phone width, the way back to the list) puts focus on its `data-focus-heading`, else its h1.
 */
export function useFocusOnNavigate(screen: string | null, address: string): void {
  const last = useRef<string | null>(null);
  const rendered = useRef<string | null>(null);
  const oldHeading = useRef<Element | null>(null);
  // Read in the first render of a new screen, before React replaces the DOM: the heading to
  // tell the new one from while a screen loads on demand.
  if (screen !== rendered.current) {
    rendered.current = screen;
    oldHeading.current = document.querySelector('main h1');
  }
  useEffect(() => {
    if (screen === null) return;
    const before = last.current;
    last.current = screen;
    if (before === null || !navigator.userActivation?.hasBeenActive) return;
    let frame = 0;
    if (before === screen) {
      frame = requestAnimationFrame(() => {
        const h = document.querySelector<HTMLElement>('main [data-focus-heading]') ?? document.querySelector<HTMLElement>('main h1');
        if (h && focusLost()) focusHeading(h);
      });
      return () => cancelAnimationFrame(frame);
    }
    const started = performance.now();
    const tick = () => {
      const h = document.querySelector<HTMLElement>('main h1');
      if (h && h !== oldHeading.current) return focusHeading(h);
      if (performance.now() - started < WAIT_MS) frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [screen, address]);
}
