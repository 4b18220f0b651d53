import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';

/**
 * A button for a move that cannot be taken back: the first click asks, naming what will happen; only
 * "yes" acts; "no" or Escape leaves everything as it was. Focus goes to "no", the safe answer, so an Enter
 * pressed out of habit changes nothing. A refusal from the API shows beside the question, which stays open
 * so the move can be tried again.
 */
export function ConfirmButton({ label, ariaLabel, question, yes, buttonClass = 'danger', disabled, onConfirm }: {
  label: string;
  ariaLabel?: string;
  question: string;
  yes: string;
  buttonClass?: string;
  disabled?: boolean;
  onConfirm: () => Promise<unknown>;
}) {
  const [asking, setAsking] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState('');
  const noButton = useRef<HTMLButtonElement>(null);
  const askButton = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  // Focus goes to the safe answer when the question is asked (`autofocus` works once per page), and back
  // to the button when it is put away.
  useLayoutEffect(() => {
    if (asking) noButton.current?.focus();
    else if (asked.current) askButton.current?.focus();
    asked.current = asking;
  }, [asking]);
  if (!asking) {
    return (
      <button
        type='button'
        class={buttonClass}
        aria-label={ariaLabel}
        disabled={disabled}
        ref={askButton}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  const keep = () => {
    setAsking(false);
    setError('');
  };
  return (
    <span class='confirm' role='group' aria-label={question} onKeyDown={(e) => e.key === 'Escape' && keep()}>
      {question}{' '}
      <button
        type='button'
        class='danger'
        disabled={pending}
        onClick={async () => {
          setPending(true);
          setError('');
          try {
            await onConfirm();
            setAsking(false);
          } catch (e) {
            setError((e as Error).message);
          } finally {
            setPending(false);
          }
        }}
      >
        {pending ? text(common).saving : yes}
      </button>{' '}
      <button type='button' ref={noButton} onClick={keep}>{text(common).no}</button>
      {error && <span class='field-error' role='alert'>{error}</span>}
    </span>
  );
}
