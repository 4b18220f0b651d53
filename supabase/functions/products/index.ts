/**
 * products: the products and their stock under /functions/v1/products: the list with current stock,
 * one product with its lots, its movement ledger and stock-in history; create, update and delete for
 * administrators and the service key. Reads follow the tables' RLS; each write is one SQL function.
 */
import { dependenciesFromEnv } from '../_shared/deps.ts';
import { inventoryArea } from '../_shared/errors.ts';
import { type Dependencies, route, serveFunction } from '../_shared/http.ts';
import { done } from '../_shared/responses.ts';
import { productHandlers } from './handlers.ts';
import {
  changedResponse,
  expiringResponse,
  listResponse,
  lotOrdersResponse,
  movementsResponse,
  productResponse,
  stockInsResponse,
  summaryResponse,
} from './responses.ts';
import {
  createBody,
  expiringQuery,
  listQuery,
  lotPath,
  movementsQuery,
  productPath,
  stockInsQuery,
  summaryQuery,
  updateBody,
} from './schemas.ts';

export function createHandler(deps: Dependencies) {
  const handlers = productHandlers(deps.db);
  return serveFunction({
    name: 'products',
    title: 'Products',
    description: 'Products and their stock (seed 02): the list with current stock, lots, the movement ledger ' +
      'and the stock-in history, as the RLS of the tables lets the caller see them; create, update and ' +
      'delete for administrators and the service key.',
    area: inventoryArea,
    routes: [
      route({
        method: 'GET',
        path: '/',
        query: listQuery,
        summary:
          'List products with their current stock: search, stock status, low-stock and active filters, paged and sorted',
        response: listResponse,
        handle: handlers.list,
      }),
      route({
        method: 'POST',
        path: '/',
        body: createBody,
        summary: 'Create a product (administrators and the service key)',
        status: 201,
        response: changedResponse,
        errors: [403, 409],
        example: { sku: 'TEA-OOLONG-150', name: 'Alishan Oolong Tea 150 g', reorder_level: 20 },
        handle: handlers.create,
      }),
      route({
        method: 'GET',
        path: '/expiring',
        query: expiringQuery,
        summary: 'Lots with stock left that expire within within_days store days (default 30) or have expired, ' +
          'soonest first, paged',
        response: expiringResponse,
        handle: handlers.expiring,
      }),
      route({
        method: 'GET',
        path: '/summary',
        query: summaryQuery,
        summary: 'How many active products are out of stock and low on stock, and how many lots expire within 30 days',
        response: summaryResponse,
        handle: handlers.summary,
      }),
      route({
        method: 'GET',
        path: '/:id',
        params: productPath,
        summary: 'One product with its lots (those the caller may see), in FIFO drawing order',
        response: productResponse,
        errors: [404],
        handle: handlers.read,
      }),
      route({
        method: 'PUT',
        path: '/:id',
        params: productPath,
        body: updateBody,
        summary: 'Change a product (only the fields sent): sku, name, is_active, reorder_level',
        response: changedResponse,
        errors: [403, 404, 409],
        example: { is_active: false },
        handle: handlers.update,
      }),
      route({
        method: 'DELETE',
        path: '/:id',
        params: productPath,
        summary: 'Delete a product (soft: kept for the ledger, deactivated); refused while it holds stock',
        response: done,
        errors: [403, 404, 422],
        handle: handlers.remove,
      }),
      route({
        method: 'GET',
        path: '/:id/movements',
        params: productPath,
        query: movementsQuery,
        summary: "The product's movement ledger, newest first, paged: who, why, delta, stock before and after",
        response: movementsResponse,
        errors: [404],
        handle: handlers.movements,
      }),
      route({
        method: 'GET',
        path: '/:id/lots/:lot/orders',
        params: lotPath,
        query: stockInsQuery,
        summary: 'The recall question: the orders (and their customers) that received units of one lot, newest ' +
          'shipped first, paged; administrators only see them (RLS)',
        response: lotOrdersResponse,
        errors: [404],
        handle: handlers.lotOrders,
      }),
      route({
        method: 'GET',
        path: '/:id/stock-ins',
        params: productPath,
        query: stockInsQuery,
        summary: "The product's stock-in history, newest first, paged",
        response: stockInsResponse,
        errors: [404],
        handle: handlers.stockIns,
      }),
    ],
  }, deps);
}

if (import.meta.main) Deno.serve(createHandler(dependenciesFromEnv()));
