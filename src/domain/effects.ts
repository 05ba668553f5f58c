/**
 * Message effects: every expressive send Apple's Messages offers, under clear names, with the
 * Apple effect id a Mac needs (what BlueBubbles takes as `effectId`; the simulator records it).
 * Ids as Messages uses them (bubble effects `com.apple.MobileSMS.expressivesend.*`, screen effects
 * `com.apple.messages.effect.CK*Effect`), checked against BlueBubbles' own effect table.
 * Earlier names stay accepted as aliases.
 */

export interface Effect {
  name: string;
  kind: 'bubble' | 'screen';
  appleId: string;
  /** Other names that mean the same effect (earlier Blueline names among them). */
  aliases: readonly string[];
}

const bubble = (name: string, id: string, aliases: string[] = []): Effect => ({ name, kind: 'bubble', appleId: `com.apple.MobileSMS.expressivesend.${id}`, aliases });
const screen = (name: string, id: string, aliases: string[] = []): Effect => ({ name, kind: 'screen', appleId: `com.apple.messages.effect.${id}`, aliases });

export const EFFECTS: readonly Effect[] = [
  bubble('slam', 'impact', ['impact']),
  bubble('loud', 'loud'),
  bubble('gentle', 'gentle'),
  bubble('invisible_ink', 'invisibleink', ['invisibleink']),
  screen('echo', 'CKEchoEffect'),
  screen('spotlight', 'CKSpotlightEffect'),
  screen('balloons', 'CKHappyBirthdayEffect'),
  screen('confetti', 'CKConfettiEffect'),
  screen('love', 'CKHeartEffect', ['heart']),
  screen('lasers', 'CKLasersEffect', ['laser']),
  screen('fireworks', 'CKFireworksEffect', ['fireball']),
  // Messages calls CKSparklesEffect "Celebration".
  screen('celebration', 'CKSparklesEffect', ['sparkles']),
  screen('shooting_star', 'CKShootingStarEffect', ['shootingstar']),
];

const BY_NAME = new Map(EFFECTS.flatMap((e) => [e.name, ...e.aliases].map((n) => [n, e] as const)));

/** Every name `effect` accepts: the effects' own names first, then the aliases (4098's allowed_effects). */
export const ALLOWED_EFFECTS: readonly string[] = [...EFFECTS.map((e) => e.name), ...EFFECTS.flatMap((e) => e.aliases)];

export const effectNamed = (name: string): Effect | undefined => BY_NAME.get(name);

/** The Apple effect id behind a name or alias; undefined for an unknown name. */
export const appleEffectId = (name: string): string | undefined => BY_NAME.get(name)?.appleId;
