import type { ComponentChildren, PartialInputHTMLAttributes } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';

/**
 * A form's values, the API's errors on its fields and its pending state. `submit(run)` calls the API;
 * a refusal naming a field (`details.field`) lands on that field and focuses it, anything else above
 * the form. Fields are named as the API names them, so the API's word goes where the user typed.
 */
export function useForm<V extends Record<string, string | boolean>>(initial: V) {
  const [values, setValues] = useState<V>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>('');
  const [pending, setPending] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const busy = useRef(false);

  const set = (name: keyof V, value: string | boolean) => {
    setValues((v) => ({ ...v, [name]: value }));
    if (errors[name as string]) setErrors((e) => ({ ...e, [name as string]: '' }));
  };

  /**
   * Sends the form through `run`, unless `check` finds what the API would refuse: then every problem shows
   * on its field at once, focus goes to the first, and nothing is sent.
   */
  async function submit<T>(
    run: (values: V) => Promise<T>,
    aliases: Record<string, string> = {},
    check?: (values: V) => Record<string, string>,
  ): Promise<T | undefined> {
    if (busy.current) return undefined; // a second click while the first is on its way
    const problems = Object.fromEntries(Object.entries(check?.(values) ?? {}).filter(([, message]) => message));
    if (Object.keys(problems).length) {
      setErrors(problems);
      setFormError('');
      const first = Object.keys(problems)[0];
      setTimeout(() => formRef.current?.querySelector<HTMLElement>(`[name="${CSS.escape(first)}"]`)?.focus(), 0);
      return undefined;
    }
    busy.current = true;
    setPending(true);
    setErrors({});
    setFormError('');
    try {
      return await run(values);
    } catch (error) {
      const failure = error as Error;
      const field = failure instanceof ApiError ? failure.field : undefined;
      const name = field ? (aliases[field] ?? field) : undefined;
      const input = name ? formRef.current?.querySelector<HTMLElement>(`[name="${CSS.escape(name)}"]`) : null;
      if (name && input) {
        setErrors({ [name]: failure.message });
        setTimeout(() => input.focus(), 0);
      } else {
        setFormError(failure.message);
      }
      return undefined;
    } finally {
      busy.current = false;
      setPending(false);
    }
  }

  return { values, setValues, set, errors, formError, setFormError, pending, submit, formRef };
}

type FieldProps = {
  label: string;
  name: string;
  error?: string;
  hint?: string;
  children?: ComponentChildren;
} & Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'label' | 'name'>;

/** A labelled input whose API error is announced and tied to it (aria-invalid, aria-describedby). */
export function Field({ label, name, error, hint, children, id, ...input }: FieldProps) {
  const fieldId = id ?? `f-${name}`;
  const describedBy = [error ? `${fieldId}-error` : '', hint ? `${fieldId}-hint` : ''].filter(Boolean).join(' ') ||
    undefined;
  return (
    <div class={`field${error ? ' invalid' : ''}`}>
      <label for={fieldId}>{label}</label>
      {children ?? (
        <input
          id={fieldId}
          name={name}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={describedBy}
          {...(input as Record<string, unknown>)}
        />
      )}
      {hint && (
        <small id={`${fieldId}-hint`} class='hint'>
          {hint}
        </small>
      )}
      {error && (
        <small id={`${fieldId}-error`} class='field-error' role='alert'>
          {error}
        </small>
      )}
    </div>
  );
}

export function SelectField({ label, name, error, value, onChange, options, hint, disabled }: {
  label: string;
  name: string;
  error?: string;
  hint?: string;
  value: string;
  disabled?: boolean;
  onChange: (value: string) => void;
  options: { value: string; label: string }[];
}) {
  const id = `f-${name}`;
  const describedBy = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <Field label={label} name={name} error={error} hint={hint}>
      <select
        id={id}
        name={name}
        value={value}
        disabled={disabled}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy}
        onChange={(e) => onChange(e.currentTarget.value)}
      >
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </Field>
  );
}

export function FormError({ message }: { message: string }) {
  return message ? <div class='state error' role='alert'>{message}</div> : null;
}

/** Previous and next page of a list; `count` says how many items the list has (its words, its plural). */
export function Pager(
  { page, totalPages, count, onPage, label }: {
    page: number;
    totalPages: number;
    count: string;
    onPage: (page: number) => void;
    label: string;
  },
) {
  const t = text(common);
  return (
    <nav class='pager' aria-label={label}>
      <button type='button' disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t.previousPage}
      </button>
      <span>
        {t.pageOf(Math.min(page, Math.max(totalPages, 1)), Math.max(totalPages, 1))} · {count}
      </span>
      <button type='button' disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        {t.nextPage}
      </button>
    </nav>
  );
}

/** A fresh Idempotency-Key (crypto.randomUUID where the page is a secure context, else random bytes). */
export function newIdempotencyKey() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The checks forms share, in the console's language; each returns the problem or '' when there is none. */
export const checks = {
  required: (value: string) => (value.trim() === '' ? text(common).required : ''),
  integer: (value: string, min: number, max: number) =>
    value.trim() === ''
      ? ''
      : /^-?\d+$/.test(value.trim()) && Number(value) >= min && Number(value) <= max
      ? ''
      : text(common).integerBetween(min, max),
  decimal: (value: string, min: number, max: number, decimals = 2) =>
    value.trim() === ''
      ? ''
      : new RegExp(`^-?\\d+(\\.\\d{1,${decimals}})?$`).test(value.trim()) && Number(value) >= min &&
          Number(value) <= max
      ? ''
      : text(common).decimalBetween(min, max, decimals),
};
