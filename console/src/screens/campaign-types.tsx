import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { ConfirmButton } from '../components/confirm.tsx';
import { CsvButton, type CsvColumn, csvFileName, yesNoColumn } from '../components/csv.tsx';
import { checks, Field, FormError, SelectField, useForm } from '../components/form.tsx';
import { changed, Empty, ErrorBox, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader } from '../components/screen.tsx';
import { Badge } from '../components/badge.tsx';
import { type Layer, layerLabel, LAYERS } from '../format/labels.ts';
import { fmt } from '../format/numbers.ts';
import { campaignTypesText } from '../i18n/campaign-types.ts';
import { common } from '../i18n/common.ts';
import { locale, text } from '../i18n/index.ts';
import { href, type Route, useParams } from '../router.ts';
import { MAX_WEIGHT } from '../../../supabase/functions/_shared/money.ts';
import { Limits } from '../../../supabase/functions/_shared/database.types.ts';

type CampaignType = Ok<paths['/campaign-types']['get']>['data'][number];
type Groups = Ok<paths['/campaign-types/groups']['get']>['data'];

/** The catalogue file's columns, as the catalogue heads them; the code is what the API and campaigns name. */
function typeColumns(): CsvColumn<CampaignType>[] {
  const t = text(campaignTypesText);
  return [
    { header: t.code, cell: (x) => x.type_code },
    { header: t.nameZh, cell: (x) => x.display_name_zh },
    { header: t.nameEn, cell: (x) => x.display_name_en },
    { header: t.layer, cell: (x) => layerLabel(x.attribution_layer) },
    { header: t.weight, cell: (x) => x.default_weight },
    { header: t.priority, cell: (x) => x.default_priority },
    yesNoColumn(t.isActive, (x) => x.is_active),
  ];
}

/** A type's name in the console's language: its Chinese name, or its English one (the Chinese when it has none). */
const typeName = (
  x: CampaignType,
) => (locale() === 'zh-TW' ? x.display_name_zh : x.display_name_en ?? x.display_name_zh);

export function CampaignTypesScreen({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const t = text(campaignTypesText);
  const [params, setParams] = useParams(route);
  const showInactive = params.inactive === '1';
  const editing = params.edit; // a type code, or "new"
  const [message, setMessage] = useState('');
  // The result of a change takes focus, so it is read out and the next step starts from it.
  const said = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (message) said.current?.focus();
  }, [message]);

  const groups = useLoad(
    (signal) => api('get', '/campaign-types/groups', { signal }).then((r) => r.data),
    [],
    'campaign-types',
  );
  const all = useLoad(
    (signal) =>
      api('get', '/campaign-types', {
        query: {
          includeInactive: showInactive ? 'true' : 'false',
          per_page: '200',
          sort_by: 'default_priority',
          sort_order: 'desc',
        },
        signal,
      }),
    [showInactive],
    'campaign-types',
  );
  const health = useLoad(
    (signal) => api('get', '/campaign-types/health', { signal }).then((r) => r.data),
    [],
    'campaign-types',
  );

  const done = (said: string) => {
    setMessage(said);
    setParams({ edit: undefined });
    changed('campaign-types');
  };
  const editedType = editing && editing !== 'new' ? all.data?.data.find((t) => t.type_code === editing) : undefined;

  return (
    <section>
      <ScreenHeader title={t.title} lead={t.lead}>
        {isAdmin && <a class='button primary' href={href('campaign-types', { ...params, edit: 'new' })}>{t.newType}</a>}
      </ScreenHeader>
      {message && <p class='state success' role='status' tabIndex={-1} ref={said}>{message}</p>}
      {isAdmin && editing && (editing === 'new' || editedType) && (
        <TypeForm
          key={editing}
          type={editedType}
          onDone={done}
          onCancel={() => setParams({ edit: undefined })}
        />
      )}
      {isAdmin && editing && editing !== 'new' && all.status === 'ready' && !editedType && (
        <ErrorBox title={t.cannotEdit} error={new Error(t.noSuchType(editing))} />
      )}
      <div class='two-columns wide-left'>
        <div>
          <label class='checkbox'>
            <input
              type='checkbox'
              checked={showInactive}
              onChange={(e) => setParams({ inactive: e.currentTarget.checked ? '1' : undefined }, true)}
            />
            {t.showDeactivated}
          </label>
          <Loaded load={all} label={t.loadingCatalogue}>
            {(list) => (
              <>
                <Catalogue types={list.data} groups={groups.data} isAdmin={isAdmin} onChanged={done} params={params} />
                <p>
                  <CsvButton filename={csvFileName(t.csvFile)} columns={typeColumns()} rows={() => list.data} />
                </p>
              </>
            )}
          </Loaded>
        </div>
        <aside class='stack'>
          <section class='card' aria-labelledby='catalogue-health-title'>
            <h2 id='catalogue-health-title'>{t.catalogueHealth}</h2>
            <Loaded load={health}>
              {(h) => (
                <>
                  <p class='big-inline'>
                    <span class='big'>{fmt.num(h.system_health_score)}</span> / 100
                  </p>
                  <p>{t.activeOf(h.active_types, h.total_types)}</p>
                  <table class='compact'>
                    <caption>{t.perLayer}</caption>
                    <tbody>
                      {LAYERS.map((l) => (
                        <tr key={l}>
                          <th scope='row'>{layerLabel(l)}</th>
                          <td>{h.layers_coverage[l]}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  {h.recommendations.length > 0 && (
                    <>
                      <h3>{t.recommendations}</h3>
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
  const t = text(campaignTypesText);
  if (!types.length) return <Empty>{t.emptyCatalogue}{isAdmin ? t.createFirst : ''}</Empty>;
  return (
    <div class='stack'>
      {LAYERS.map((layer) => {
        const inLayer = types.filter((x) => x.attribution_layer === layer);
        const group = groups?.[layer];
        return (
          <section key={layer} class='card layer' aria-labelledby={`layer-${layer}`}>
            <h2 id={`layer-${layer}`}>
              <span class={`swatch layer-${layer}`} aria-hidden='true' /> {layerLabel(layer)}
            </h2>
            <p class='muted'>{text(common)[`layerAbout.${layer}`]}</p>
            {group && (
              <p class='muted' data-layer-multiplier={group.multiplier}>
                {t.layerMultiplier(String(group.multiplier))}
              </p>
            )}
            {inLayer.length === 0
              ? <Empty>{t.noTypeInLayer}</Empty>
              : (
                <div class='table-wrap' tabIndex={0} role='region' aria-label={layerLabel(layer)}>
                  <table>
                    <thead>
                      <tr>
                        <th scope='col'>{t.code}</th>
                        <th scope='col'>{t.name}</th>
                        <th scope='col' class='num'>{t.weight}</th>
                        <th scope='col' class='num'>{t.priority}</th>
                        <th scope='col'>{t.state}</th>
                        {isAdmin && (
                          <th scope='col'>
                            <span class='visually-hidden'>{t.actions}</span>
                          </th>
                        )}
                      </tr>
                    </thead>
                    <tbody>
                      {inLayer.map((x) => (
                        <tr key={x.type_code} data-type-code={x.type_code}>
                          <td>
                            <code>{x.type_code}</code>
                          </td>
                          <td data-user-text>{typeName(x)}</td>
                          <td class='num'>{fmt.num(x.default_weight)}</td>
                          <td class='num'>{fmt.int(x.default_priority)}</td>
                          <td>
                            {x.is_active
                              ? <Badge kind='active'>{t.active}</Badge>
                              : <Badge kind='cancelled'>{t.deactivated}</Badge>}
                          </td>
                          {isAdmin && (
                            <td class='row-actions'>
                              <a
                                href={href('campaign-types', { ...params, edit: x.type_code })}
                                aria-label={t.editCode(x.type_code)}
                              >
                                {t.edit}
                              </a>
                              {x.is_active && <Deactivate code={x.type_code} onDone={onChanged} />}
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
  const t = text(campaignTypesText);
  return (
    <ConfirmButton
      label={t.deactivate}
      ariaLabel={t.deactivateCode(code)}
      buttonClass='link danger'
      yes={t.yesDeactivate}
      question={t.deactivateQuestion(code)}
      onConfirm={async () => {
        await api('delete', '/campaign-types/{type_code}', { path: { type_code: code } });
        onDone(t.typeDeactivated(code));
      }}
    />
  );
}

function TypeForm(
  { type, onDone, onCancel }: { type?: CampaignType; onDone: (message: string) => void; onCancel: () => void },
) {
  const t = text(campaignTypesText);
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
  const orNull = (s: string) => (s.trim() === '' ? null : s);

  return (
    <form
      class='card form'
      ref={form.formRef}
      noValidate
      aria-labelledby='type-form-title'
      onSubmit={(e) => {
        e.preventDefault();
        form.submit(
          async () => {
            const fields = {
              display_name_zh: v.display_name_zh,
              display_name_en: orNull(v.display_name_en),
              attribution_layer: v.attribution_layer,
              default_weight: number(v.default_weight),
              default_priority: number(v.default_priority),
              description: orNull(v.description),
              is_active: v.is_active,
            };
            const r = type
              ? await api('put', '/campaign-types/{type_code}', { path: { type_code: type.type_code }, body: fields })
              : await api('post', '/campaign-types', {
                body: { type_code: v.type_code, ...fields, display_name_en: fields.display_name_en ?? undefined },
              });
            onDone(type ? t.typeSaved(r.data.type_code) : t.typeCreated(r.data.type_code));
          },
          {},
          (x) => ({
            type_code: type
              ? ''
              : checks.required(x.type_code) || (/^[a-z][a-z0-9_]*$/.test(x.type_code) ? '' : text(common).codeFormat),
            display_name_zh: checks.required(x.display_name_zh),
            default_weight: checks.decimal(x.default_weight, 0, MAX_WEIGHT),
            default_priority: checks.integer(x.default_priority, 0, Limits.priority),
          }),
        );
      }}
    >
      <h2 id='type-form-title'>{type ? t.editCode(type.type_code) : t.newType}</h2>
      <FormError message={form.formError} />
      <div class='grid'>
        <Field
          label={t.code}
          name='type_code'
          value={v.type_code}
          disabled={!!type}
          error={form.errors.type_code}
          hint={t.codeHint}
          onInput={(e) => form.set('type_code', e.currentTarget.value)}
        />
        <Field
          label={t.nameZh}
          name='display_name_zh'
          value={v.display_name_zh}
          error={form.errors.display_name_zh}
          onInput={(e) => form.set('display_name_zh', e.currentTarget.value)}
        />
        <Field
          label={t.nameEn}
          name='display_name_en'
          value={v.display_name_en}
          error={form.errors.display_name_en}
          onInput={(e) => form.set('display_name_en', e.currentTarget.value)}
        />
        <SelectField
          label={t.layer}
          name='attribution_layer'
          value={v.attribution_layer}
          error={form.errors.attribution_layer}
          onChange={(x) => form.set('attribution_layer', x)}
          options={LAYERS.map((l: Layer) => ({ value: l, label: layerLabel(l) }))}
        />
        <Field
          label={t.defaultWeight}
          name='default_weight'
          inputMode='decimal'
          value={v.default_weight}
          error={form.errors.default_weight}
          hint={t.weightHint}
          onInput={(e) => form.set('default_weight', e.currentTarget.value)}
        />
        <Field
          label={t.defaultPriority}
          name='default_priority'
          inputMode='numeric'
          value={v.default_priority}
          error={form.errors.default_priority}
          hint={t.priorityHint}
          onInput={(e) => form.set('default_priority', e.currentTarget.value)}
        />
      </div>
      <Field label={t.description} name='description' error={form.errors.description}>
        <textarea
          id='f-description'
          name='description'
          rows={2}
          value={v.description}
          onInput={(e) => form.set('description', e.currentTarget.value)}
        />
      </Field>
      <label class='checkbox'>
        <input
          type='checkbox'
          name='is_active'
          checked={v.is_active}
          onChange={(e) => form.set('is_active', e.currentTarget.checked)}
        />{' '}
        {t.activeCheckbox}
      </label>
      <div class='actions'>
        <button type='submit' class='primary' disabled={form.pending}>
          {form.pending ? text(common).saving : type ? t.saveChanges : t.createType}
        </button>
        <button type='button' onClick={onCancel}>{t.cancel}</button>
      </div>
    </form>
  );
}

function ValidateCode() {
  const t = text(campaignTypesText);
  const [code, setCode] = useState('');
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const [error, setError] = useState('');
  return (
    <form
      class='card'
      noValidate
      aria-labelledby='validate-title'
      onSubmit={async (e) => {
        e.preventDefault();
        setError('');
        setResult(null);
        if (!code.trim()) return setError(t.typeACode);
        try {
          const r = await api('post', '/campaign-types/{type_code}/validate', { path: { type_code: code.trim() } });
          setResult({ ok: r.data.is_valid, text: r.data.validation_message });
        } catch (e) {
          setError((e as Error).message);
        }
      }}
    >
      <h2 id='validate-title'>{t.checkCode}</h2>
      <Field
        label={t.typeCode}
        name='validate_code'
        value={code}
        error={error}
        onInput={(e) => setCode(e.currentTarget.value)}
      />
      <button type='submit'>{t.check}</button>
      {result && (
        <p class='state' role='status'>
          <Badge kind={result.ok ? 'good' : 'bad'}>{result.ok ? t.valid : t.notValid}</Badge> {result.text}
        </p>
      )}
    </form>
  );
}
