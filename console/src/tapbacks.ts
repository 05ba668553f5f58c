/** Tapbacks as Messages shows them: the thread's reactions and the simulator's device log and form. */
import type { ReactRequest } from '@blueline/sdk';

export type Tapback = ReactRequest['reaction'];

export const TAPBACK_EMOJI: Record<Tapback, string> = { love: '❤️', like: '👍', dislike: '👎', laugh: '😂', emphasize: '‼️', question: '❓' };

/** Messages' own words for a tapback put on a message ("Loved “…”"). */
export const TAPBACK_VERB: Record<Tapback, string> = { love: 'Loved', like: 'Liked', dislike: 'Disliked', laugh: 'Laughed at', emphasize: 'Emphasized', question: 'Questioned' };

export const TAPBACKS: readonly Tapback[] = ['love', 'like', 'dislike', 'laugh', 'emphasize', 'question'];

/** The tapback a string names (a select's value, a log entry's field), if any. */
export const tapbackOf = (value: unknown): Tapback | undefined => TAPBACKS.find((t) => t === value);
