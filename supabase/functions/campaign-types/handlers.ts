/** The seven catalogue operations. Each reads or writes through one transaction as the caller. */
import type { Tables } from '../_shared/database.types.ts';
import { enums } from '../_shared/enums.ts';
import { type Database, pageOf, type Tx } from '../_shared/db.ts';
import { catalogueArea as area } from '../_shared/errors.ts';
import { type Ctx, ok, pageAnswer } from '../_shared/http.ts';
import type * as routes from './routes.ts';
import type { z } from 'zod';
import { LAYER_INFO } from './layers.ts';
import { type CatalogueEntry, catalogueHealth } from './health.ts';
import { type listQuery, TYPE_CODE_PATTERN } from './schemas.ts';

type Row = Tables<'campaign_type_config'>;

/**
 * One page of the catalogue and the total it is a page of, in the caller's transaction. Also the bench's
 * database ceiling for the list, so both issue the same statements.
 */
export async function cataloguePage(tx: Tx, query: z.output<typeof listQuery>) {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 50;
  const where = query.includeInactive ? tx`true` : tx`is_active`;
  const order = query.sort_by
    ? tx`${tx(query.sort_by)} ${query.sort_order === 'desc' ? tx`desc` : tx`asc`}, type_code`
    : tx`attribution_layer, default_priority desc, type_code`;
  return await pageOf(
    tx<(Row & { total_count: number })[]>`
      select *, count(*) over () as total_count
      from public.campaign_type_config
      where ${where}
      order by ${order}
      limit ${perPage} offset ${(page - 1) * perPage}`,
    page,
    () => tx<{ count: number }[]>`select count(*) from public.campaign_type_config where ${where}`,
  );
}

export function catalogueHandlers(db: Database) {
  return {
    async list(c: Ctx<typeof routes.list>) {
      const query = c.req.valid('query');
      const page = query.page ?? 1;
      const perPage = query.per_page ?? 50;
      const result = await db.asCaller(c.var.caller, area, (tx) => cataloguePage(tx, query));
      return c.json(pageAnswer(result, page, perPage), 200);
    },

    async groups(c: Ctx<typeof routes.groups>) {
      const { rows, multipliers } = await db.asCaller(c.var.caller, area, async (tx) => ({
        rows: await tx<Row[]>`
          select * from public.campaign_type_config
          where is_active
          order by attribution_layer, default_priority desc, type_code`,
        multipliers: await tx<{ attribution_layer: string; multiplier: number }[]>`
          select attribution_layer, multiplier from public.attribution_layers`,
      }));
      const data = Object.fromEntries(
        enums.attribution_layer.map((layer) => {
          const types = rows.filter((row) => row.attribution_layer === layer);
          const { multiplier } = multipliers.find((m) => m.attribution_layer === layer)!;
          return [layer, { layer, ...LAYER_INFO[layer], multiplier, types, total_count: types.length }];
        }),
      );
      return ok(c, data);
    },

    async health(c: Ctx<typeof routes.health>) {
      const rows = await db.asCaller(c.var.caller, area, (tx) =>
        tx<CatalogueEntry[]>`
          select type_code, attribution_layer, default_weight, is_active from public.campaign_type_config`);
      const language = c.var.language;
      return c.json({ success: true as const, data: catalogueHealth(rows, language) }, 200, {
        'content-language': language,
        vary: 'Accept-Language',
      });
    },

    async create(c: Ctx<typeof routes.create>) {
      const config = c.req.valid('json');
      const [created] = await db.asCaller(
        c.var.caller,
        area,
        (tx) => tx<Row[]>`select * from public.create_campaign_type(${tx.json(config)})`,
      );
      return c.json(
        { success: true as const, data: created, message: `Campaign type ${created.type_code} created` },
        201,
      );
    },

    async update(c: Ctx<typeof routes.update>) {
      const typeCode = c.req.valid('param').type_code;
      const changes = c.req.valid('json');
      const [updated] = await db.asCaller(
        c.var.caller,
        area,
        (tx) => tx<Row[]>`select * from public.update_campaign_type(${typeCode}, ${tx.json(changes)})`,
      );
      return c.json({ success: true as const, data: updated, message: `Campaign type ${typeCode} updated` }, 200);
    },

    async deactivate(c: Ctx<typeof routes.deactivate>) {
      const typeCode = c.req.valid('param').type_code;
      await db.asCaller(c.var.caller, area, (tx) => tx`select 1 from public.deactivate_campaign_type(${typeCode})`);
      return c.json({ success: true as const, message: `Campaign type ${typeCode} deactivated` }, 200);
    },

    async validateType(c: Ctx<typeof routes.validateType>) {
      const typeCode = c.req.valid('param').type_code;
      if (typeCode.length > 50 || !TYPE_CODE_PATTERN.test(typeCode)) {
        return verdict(c, false, undefined, 'type_code must match ^[a-z][a-z0-9_]*$ and be at most 50 characters');
      }
      const [config] = await db.asCaller(
        c.var.caller,
        area,
        (tx) => tx<Row[]>`select * from public.campaign_type_config where type_code = ${typeCode}`,
      );
      if (!config) return verdict(c, false, undefined, `Campaign type ${typeCode} does not exist`);
      if (!config.is_active) return verdict(c, false, config, `Campaign type ${typeCode} is inactive`);
      return verdict(c, true, config, `Campaign type ${typeCode} is valid and active`);
    },
  };
}

function verdict(c: Ctx<typeof routes.validateType>, isValid: boolean, config: Row | undefined, message: string) {
  return ok(c, { is_valid: isValid, ...(config ? { type_config: config } : {}), validation_message: message });
}
