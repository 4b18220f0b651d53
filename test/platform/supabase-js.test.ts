// The front end's path: @supabase/supabase-js pointed at the local stack, as at `supabase start`.
import { createClient, FunctionsHttpError } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';
import { ANON_KEY, apiUrl, tokens, unique } from '../support/client.ts';

function clientFor(accessToken: string) {
  return createClient(apiUrl, ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
    accessToken: async () => accessToken,
  });
}

describe('supabase-js functions.invoke', () => {
  it('reads the catalogue groups as a signed-in customer', async () => {
    const { data, error } = await clientFor(tokens.customer).functions.invoke('campaign-types/groups', { method: 'GET' });
    expect(error).toBeNull();
    expect(data.success).toBe(true);
    expect(Object.keys(data.data)).toEqual(['site-wide', 'target-oriented', 'category-specific', 'general']);
  });

  it('creates a type as an admin', async () => {
    const type_code = unique('js');
    const { data, error } = await clientFor(tokens.admin).functions.invoke('campaign-types', {
      body: { type_code, display_name_zh: '前端', attribution_layer: 'category-specific', default_weight: 0.75 },
    });
    expect(error).toBeNull();
    expect(data.data).toMatchObject({ type_code, default_weight: 0.75 });
  });

  it('surfaces a 403 as a FunctionsHttpError carrying the envelope', async () => {
    const { error } = await clientFor(tokens.customer).functions.invoke('campaign-types', {
      body: { type_code: unique('js'), display_name_zh: '客', attribution_layer: 'general' },
    });
    expect(error).toBeInstanceOf(FunctionsHttpError);
    const response = (error as FunctionsHttpError).context as Response;
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ success: false, error_code: 'INSUFFICIENT_PERMISSION' });
  });
});
