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

type Figures = Record<string, unknown>;
type RuleWords = Record<string, (p: Figures, field: string) => string>;
const n = (value: unknown) => Number(value).toLocaleString('en');

/**
 * The rules the API names in `details.rule` (with their figures in `details.params`), in words. The field's
 * own label stands beside the words, so they do not repeat it. A rule not here keeps the API's message.
 */
export const RULES_EN: RuleWords = {
  required: () => 'Required.',
  type: (p) => p.expected === 'int' ? 'Must be a whole number.' : p.expected === 'number' ? 'Must be a number.' : 'Not a valid value here.',
  min_length: (p) => Number(p.min) <= 1 ? 'Must not be empty.' : `At least ${n(p.min)} characters.`,
  max_length: (p) => `At most ${n(p.max)} characters.`,
  min: (p) => `At least ${n(p.min)}.`,
  max: (p) => `At most ${n(p.max)}.`,
  min_items: (p) => `At least ${n(p.min)} ${Number(p.min) === 1 ? 'line' : 'lines'}.`,
  max_items: (p) => `At most ${n(p.max)} lines.`,
  between: (p) => `Between ${n(p.min)} and ${n(p.max)}.`,
  format: (p, field) =>
    p.format === 'uuid' || p.format === 'guid' ? 'Not a valid ID.'
    : p.format === 'date' ? 'Not a valid date.'
    : p.format === 'datetime' ? 'Not a valid date and time.'
    : p.format === 'lot_number' ? '1 to 64 characters, no control characters.'
    : p.format === 'idempotency_key' ? 'This booking could not be identified; send it again.'
    : field === 'sku' ? 'Letters, digits, dots, underscores and hyphens only, starting with a letter or digit.'
    : field === 'type_code' ? 'Small letters, digits and underscores only, starting with a letter.'
    : 'Not in the expected form.',
  one_of: () => 'Not one of the choices offered.',
  unknown_field: () => 'Not something this form can send.',
  real_date: () => 'Not a real date.',
  year_one: () => 'Must be in year 1 or later.',
  decimals: (p) => `At most ${n(p.max)} decimal places.`,
  not_empty: () => 'Change at least one field.',
  not_zero: () => 'Must not be 0.',
  after: () => 'Must be later than the start.',
  on_or_after: () => 'Must not be before the start.',
  max_days: (p) => `At most ${n(p.max)} days.`,
  not_future: (p) => `Cannot be more than ${n(p.minutes)} minutes from now.`,
  not_before_received: () => 'Cannot be before the day the goods were received.',
  reason_direction: (p) => p.direction === 'decrease' ? 'This reason is for taking stock away; the change adds stock.' : 'This reason is for adding stock; the change takes stock away.',
  exactly_one: () => 'Choose the whole product or one lot.',
  requires: () => 'Choose what to sort by first.',
  read_only: () => 'Cannot be changed.',
  storable_text: () => 'Contains characters that cannot be stored.',
  storable_value: () => 'A value cannot be stored.',
  json: () => 'The request could not be read.',
  json_content_type: () => 'The request could not be read.',
  percent_encoding: () => 'The address could not be read.',
};

export const RULES_ZH: RuleWords = {
  required: () => '必填。',
  type: (p) => p.expected === 'int' ? '必須是整數。' : p.expected === 'number' ? '必須是數字。' : '這裡不接受這個值。',
  min_length: (p) => Number(p.min) <= 1 ? '不能空白。' : `至少 ${n(p.min)} 個字元。`,
  max_length: (p) => `最多 ${n(p.max)} 個字元。`,
  min: (p) => `不能小於 ${n(p.min)}。`,
  max: (p) => `不能大於 ${n(p.max)}。`,
  min_items: (p) => `至少 ${n(p.min)} 行。`,
  max_items: (p) => `最多 ${n(p.max)} 行。`,
  between: (p) => `必須介於 ${n(p.min)} 與 ${n(p.max)} 之間。`,
  format: (p, field) =>
    p.format === 'uuid' || p.format === 'guid' ? '不是有效的 ID。'
    : p.format === 'date' ? '不是有效的日期。'
    : p.format === 'datetime' ? '不是有效的日期時間。'
    : p.format === 'lot_number' ? '1 到 64 個字元，不能含控制字元。'
    : p.format === 'idempotency_key' ? '無法辨識這筆登記，請重新送出。'
    : field === 'sku' ? '只能用英文字母、數字、點、底線與連字號，並以字母或數字開頭。'
    : field === 'type_code' ? '只能用小寫英文字母、數字與底線，並以字母開頭。'
    : '格式不正確。',
  one_of: () => '不是可選的項目。',
  unknown_field: () => '這個表單不能送出這一項。',
  real_date: () => '不是存在的日期。',
  year_one: () => '年份必須是西元 1 年以後。',
  decimals: (p) => `最多 ${n(p.max)} 位小數。`,
  not_empty: () => '請至少修改一個欄位。',
  not_zero: () => '不能是 0。',
  after: () => '必須晚於開始時間。',
  on_or_after: () => '不能早於開始日期。',
  max_days: (p) => `最多 ${n(p.max)} 天。`,
  not_future: (p) => `不能晚於現在起 ${n(p.minutes)} 分鐘。`,
  not_before_received: () => '不能早於入庫當天。',
  reason_direction: (p) => p.direction === 'decrease' ? '這個原因用於減少庫存，但這次是增加。' : '這個原因用於增加庫存，但這次是減少。',
  exactly_one: () => '請選擇整個商品或其中一個批次。',
  requires: () => '請先選擇排序欄位。',
  read_only: () => '不能修改。',
  storable_text: () => '含有無法儲存的字元。',
  storable_value: () => '有一個值無法儲存。',
  json: () => '無法讀取這個請求。',
  json_content_type: () => '無法讀取這個請求。',
  percent_encoding: () => '無法讀取這個網址。',
};
