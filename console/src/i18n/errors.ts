/**
 * The API's refusals in Traditional Chinese, by their codes (the API's own messages are English). A
 * refusal whose code is not here keeps the API's words, introduced in Chinese. English screens show the
 * API's messages as they are.
 */
export const ZH_ERRORS: Record<string, string> = {
  CAMPAIGN_OVERLAP_CONFLICT: '同一時間只能有一個全站活動：這段期間已有另一個全站活動在進行。',
  CAMPAIGN_FINAL: '已完成或已取消的活動無法再修改。',
  INVALID_STATUS_TRANSITION: '活動目前的狀態不能這樣變更。',
  ATTRIBUTION_WEIGHT_EXCEEDED: '歸因權重超過這個活動類型允許的上限。',
  INVALID_DATE_RANGE: '日期範圍不正確：結束日期不能早於開始日期，且最多 366 天。',
  DUPLICATE_SKU: '已有商品使用這個商品編號（包含已刪除的商品）。',
  DUPLICATE_TYPE_CODE: '已有活動類型使用這個代碼。',
  INSUFFICIENT_STOCK: '庫存不足，無法扣除這個數量。',
  PRODUCT_INACTIVE: '這項商品未上架，無法登記。',
  PRODUCT_HAS_STOCK: '這項商品還有庫存，請先調整為 0 再刪除。',
  NO_INVENTORY_RECORD: '這項商品沒有可調整的批次。',
  IDEMPOTENCY_KEY_REUSED: '這筆登記的內容已變更，請重新送出。',
  PRODUCT_NOT_FOUND: '找不到這項商品（可能已被刪除）。',
  INVENTORY_RECORD_NOT_FOUND: '找不到這個批次。',
  CAMPAIGN_NOT_FOUND: '找不到這個活動（可能已被刪除）。',
  TYPE_NOT_FOUND: '找不到這個活動類型。',
  NOT_FOUND: '找不到這筆資料。',
  PAYLOAD_TOO_LARGE: '送出的資料太大。',
};

/** A refusal the catalogue does not know, in Chinese around the API's own words. */
export const zhRefusal = (message: string) => `無法完成：${message}`;
