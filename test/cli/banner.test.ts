import { describe, expect, it } from 'vitest';
import { firstStartBanner } from '../../src/banner.js';

const demo = { base_url: 'http://127.0.0.1:8787', tenant: 'demo', signing_secret: 'bl_sk_demo_secret', admin_token: 'bl_admin_demo_token', phone_line_ids: ['ln_a', 'ln_b'] };

describe('the first-start banner', () => {
  it('shows the demo secrets to a person at a terminal', () => {
    const text = firstStartBanner(demo as never, '/srv/data/demo.json', true);
    expect(text).toContain('signing_secret  bl_sk_demo_secret');
    expect(text).toContain('admin_token     bl_admin_demo_token');
  });

  it('otherwise says where demo.json is, and prints no secret', () => {
    const text = firstStartBanner(demo as never, '/srv/data/demo.json', false);
    expect(text).not.toContain('bl_sk_demo_secret');
    expect(text).not.toContain('bl_admin_demo_token');
    expect(text).toContain('/srv/data/demo.json');
    expect(text).toContain('ln_a, ln_b');
  });

  it('says the admin token is the environment\'s when the operator gave ADMIN_TOKEN', () => {
    const { admin_token: _, ...withoutToken } = demo;
    for (const toTerminal of [true, false]) {
      expect(firstStartBanner(withoutToken as never, '/srv/data/demo.json', toTerminal)).toContain('admin_token     (ADMIN_TOKEN, as set in the environment)');
    }
  });
});
