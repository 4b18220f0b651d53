import { useState } from 'preact/hooks';
import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { ConfirmButton } from '../components/confirm.tsx';
import { Field, FormError, SelectField, useForm } from '../components/form.tsx';
import { Empty, ErrorBox, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader } from '../components/screen.tsx';
import { Badge, fmt, layerLabel, LAYERS, type Layer } from '../format.tsx';
import { href, useParams, type Route } from '../router.ts';

type CampaignType = Ok<paths['/campaign-types']['get']>['data'][number];
type Groups = Ok<paths['/campaign-types/groups']['get']>['data'];

export function CampaignTypesScreen({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const [params, setParams] = useParams(route);
  const showInactive = params.inactive === '1';
  const editing = params.edit; // a type code, or "new"
  const [message, setMessage] = useState('');

  const groups = useLoad((signal) => api('get', '/campaign-types/groups', { signal }).then((r) => r.data), []);
  const all = useLoad(
    (signal) =>
      api('get', '/campaign-types', { query: { includeInactive: showInactive ? 'true' : 'false', per_page: '200', sort_by: 'default_priority', sort_order: 'desc' }, signal }),
    [showInactive, message],
  );
  const health = useLoad((signal) => api('get', '/campaign-types/health', { signal }).then((r) => r.data), [message]);

  const done = (text: string) => {
    setMessage(text);
    setParams({ edit: undefined });
    groups.reload();
  };
  const editedType = editing && editing !== 'new' ? all.data?.data.find((t) => t.type_code === editing) : undefined;

  return (
    <section>
      <ScreenHeader title="Campaign types" lead="The catalogue campaigns are created from, grouped by attribution layer.">
        {isAdmin && <a class="button primary" href={href('campaign-types', { ...params, edit: 'new' })}>New campaign type</a>}
      </ScreenHeader>
      {message && <p class="state success" role="status">{message}</p>}
      {isAdmin && editing && (editing === 'new' || editedType) && (
        <TypeForm key={editing} type={editedType} onDone={done} onCancel={() => setParams({ edit: undefined })} />
      )}
      {isAdmin && editing && editing !== 'new' && all.status === 'ready' && !editedType && (
        <ErrorBox title="Cannot edit." error={new Error(`There is no campaign type "${editing}".`)} />
      )}
      <div class="two-columns wide-left">
        <div>
          <label class="checkbox">
            <input type="checkbox" checked={showInactive} onChange={(e) => setParams({ inactive: e.currentTarget.checked ? '1' : undefined }, true)} />
            Show deactivated types
          </label>
          <Loaded load={all} label="Loading the catalogue…">
            {(list) => <Catalogue types={list.data} groups={groups.data} isAdmin={isAdmin} onChanged={done} params={params} />}
          </Loaded>
        </div>
        <aside class="stack">
          <section class="card" aria-labelledby="catalogue-health-title">
            <h2 id="catalogue-health-title">Catalogue health</h2>
            <Loaded load={health}>
              {(h) => (
                <>
                  <p class="big-inline"><span class="big">{fmt.num(h.system_health_score)}</span> / 100</p>
                  <p>{h.active_types} active of {h.total_types} types.</p>
                  <table class="compact">
                    <caption>Active types per layer</caption>
                    <tbody>
                      {LAYERS.map((l) => (
                        <tr key={l}><th scope="row">{layerLabel(l)}</th><td>{h.layers_coverage[l]}</td></tr>
                      ))}
                    </tbody>
                  </table>
                  {h.recommendations.length > 0 && (
                    <>
                      <h3>Recommendations</h3>
                      <ul>{h.recommendations.map((r) => <li key={r}>{r}</li>)}</ul>
                    </>
                  )}
                </>
              )}
            </Loaded>
          </section>
          <ValidateCode />
        </aside>
      </div>
    </section>
  );
}

function Catalogue({ types, groups, isAdmin, onChanged, params }: {
  types: CampaignType[];
  groups?: Groups;
  isAdmin: boolean;
  onChanged: (message: string) => void;
  params: Record<string, string>;
}) {
  if (!types.length) return <Empty>The catalogue is empty.{isAdmin ? ' Create the first campaign type.' : ''}</Empty>;
  return (
    <div class="stack">
      {LAYERS.map((layer) => {
        const inLayer = types.filter((t) => t.attribution_layer === layer);
        const group = groups?.[layer];
        return (
          <section key={layer} class="card layer" aria-labelledby={`layer-${layer}`}>
            <h2 id={`layer-${layer}`}>
              <span class={`swatch layer-${layer}`} aria-hidden="true" /> {layerLabel(layer)}{' '}
              {group && <span class="muted">{group.display_name}</span>}
            </h2>
            {group?.description && <p class="muted">{group.description}</p>}
            {inLayer.length === 0 ? <Empty>No type in this layer.</Empty> : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Code</th><th scope="col">Name</th><th scope="col" class="num">Weight</th><th scope="col" class="num">Priority</th>
                      <th scope="col">State</th>{isAdmin && <th scope="col"><span class="visually-hidden">Actions</span></th>}
                    </tr>
                  </thead>
                  <tbody>
                    {inLayer.map((t) => (
                      <tr key={t.type_code} data-type-code={t.type_code}>
                        <td><code>{t.type_code}</code></td>
                        <td>{t.display_name_zh}{t.display_name_en && <span class="muted"> · {t.display_name_en}</span>}</td>
                        <td class="num">{t.default_weight.toFixed(2)}</td>
                        <td class="num">{t.default_priority}</td>
                        <td>{t.is_active ? <Badge kind="active">active</Badge> : <Badge kind="cancelled">deactivated</Badge>}</td>
                        {isAdmin && (
                          <td class="row-actions">
                            <a href={href('campaign-types', { ...params, edit: t.type_code })} aria-label={`Edit ${t.type_code}`}>Edit</a>
                            {t.is_active && <Deactivate code={t.type_code} onDone={onChanged} />}
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        );
      })}
    </div>
  );
}

function Deactivate({ code, onDone }: { code: string; onDone: (message: string) => void }) {
  return (
    <ConfirmButton label="Deactivate" ariaLabel={`Deactivate ${code}`} buttonClass="link danger" yes="Yes, deactivate"
      question={`Deactivate ${code}? New campaigns can no longer use it; campaigns that have it keep it.`}
      onConfirm={async () => {
        const r = await api('delete', '/campaign-types/{type_code}', { path: { type_code: code } });
        onDone(r.message);
      }} />
  );
}

function TypeForm({ type, onDone, onCancel }: { type?: CampaignType; onDone: (message: string) => void; onCancel: () => void }) {
  const form = useForm({
    type_code: type?.type_code ?? '',
    display_name_zh: type?.display_name_zh ?? '',
    display_name_en: type?.display_name_en ?? '',
    attribution_layer: type?.attribution_layer ?? 'category-specific',
    default_weight: type ? String(type.default_weight) : '1.00',
    default_priority: type ? String(type.default_priority) : '50',
    description: type?.description ?? '',
    is_active: type?.is_active ?? true,
  });
  const v = form.values;
  const number = (s: string) => (s.trim() === '' ? undefined : Number(s));
  const text = (s: string) => (s.trim() === '' ? null : s);

  return (
    <form class="card form" ref={form.formRef} noValidate aria-labelledby="type-form-title" onSubmit={(e) => {
      e.preventDefault();
      form.submit(async () => {
        const fields = {
          display_name_zh: v.display_name_zh,
          display_name_en: text(v.display_name_en),
          attribution_layer: v.attribution_layer,
          default_weight: number(v.default_weight),
          default_priority: number(v.default_priority),
          description: text(v.description),
          is_active: v.is_active,
        };
        const r = type
          ? await api('put', '/campaign-types/{type_code}', { path: { type_code: type.type_code }, body: fields })
          : await api('post', '/campaign-types', { body: { type_code: v.type_code, ...fields, display_name_en: fields.display_name_en ?? undefined } });
        onDone(r.message);
      });
    }}>
      <h2 id="type-form-title">{type ? `Edit ${type.type_code}` : 'New campaign type'}</h2>
      <FormError message={form.formError} />
      <div class="grid">
        <Field label="Code" name="type_code" value={v.type_code} disabled={!!type} error={form.errors.type_code}
          hint="Lower-case letters, digits and _; cannot change later." onInput={(e) => form.set('type_code', e.currentTarget.value)} />
        <Field label="Name (Chinese)" name="display_name_zh" value={v.display_name_zh} error={form.errors.display_name_zh}
          onInput={(e) => form.set('display_name_zh', e.currentTarget.value)} />
        <Field label="Name (English)" name="display_name_en" value={v.display_name_en} error={form.errors.display_name_en}
          onInput={(e) => form.set('display_name_en', e.currentTarget.value)} />
        <SelectField label="Attribution layer" name="attribution_layer" value={v.attribution_layer} error={form.errors.attribution_layer}
          onChange={(x) => form.set('attribution_layer', x)} options={LAYERS.map((l: Layer) => ({ value: l, label: layerLabel(l) }))} />
        <Field label="Default weight" name="default_weight" inputMode="decimal" value={v.default_weight} error={form.errors.default_weight}
          hint="0.00 to 9.99" onInput={(e) => form.set('default_weight', e.currentTarget.value)} />
        <Field label="Default priority" name="default_priority" inputMode="numeric" value={v.default_priority} error={form.errors.default_priority}
          hint="0 to 100" onInput={(e) => form.set('default_priority', e.currentTarget.value)} />
      </div>
      <Field label="Description" name="description" error={form.errors.description}>
        <textarea id="f-description" name="description" rows={2} value={v.description} onInput={(e) => form.set('description', e.currentTarget.value)} />
      </Field>
      <label class="checkbox">
        <input type="checkbox" name="is_active" checked={v.is_active} onChange={(e) => form.set('is_active', e.currentTarget.checked)} /> Active
      </label>
      <div class="actions">
        <button type="submit" class="primary" disabled={form.pending}>{form.pending ? 'Saving…' : type ? 'Save changes' : 'Create type'}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

function ValidateCode() {
  const [code, setCode] = useState('');
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const [error, setError] = useState('');
  return (
    <form class="card" noValidate aria-labelledby="validate-title" onSubmit={async (e) => {
      e.preventDefault();
      setError('');
      setResult(null);
      if (!code.trim()) return setError('Type a code to check.');
      try {
        const r = await api('post', '/campaign-types/{type_code}/validate', { path: { type_code: code.trim() } });
        setResult({ ok: r.data.is_valid, text: r.data.validation_message });
      } catch (e) {
        setError((e as Error).message);
      }
    }}>
      <h2 id="validate-title">Check a code</h2>
      <Field label="Type code" name="validate_code" value={code} error={error} onInput={(e) => setCode(e.currentTarget.value)} />
      <button type="submit">Check</button>
      {result && <p class="state" role="status"><Badge kind={result.ok ? 'good' : 'bad'}>{result.ok ? 'valid' : 'not valid'}</Badge> {result.text}</p>}
    </form>
  );
}
