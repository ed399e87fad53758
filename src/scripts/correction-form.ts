/// <reference lib="dom" />
/**
 * Client script of the work page's correction form: sends the report as JSON to the
 * correction-report API, then shows the tracking code with a link to its tracking page, or each
 * problem of a 400 answer next to its field (by JSON Pointer). Every text it shows is set with
 * textContent, never as HTML.
 */

interface ProblemError {
  pointer?: string;
  parameter?: string;
  detail?: string;
}

const REQUIRED: Array<[string, string]> = [
  ['fieldName', 'Name the field that is wrong.'],
  ['proposedValue', 'Enter the value it should have.'],
  ['rationale', 'Say why, in a sentence or two.'],
  ['reporterName', 'Enter your name.'],
];

function setup(form: HTMLFormElement): void {
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  const result = form.querySelector<HTMLElement>('#correction-result');
  const summary = form.querySelector<HTMLElement>('#correction-summary');
  if (!button || !result || !summary) return;
  button.disabled = false;

  const errorSlots = [...form.querySelectorAll<HTMLElement>('[data-errors-for]')];
  const slotFor = (pointer: string) =>
    errorSlots.find((el) => (el.dataset.errorsFor ?? '').split(' ').includes(pointer));
  const controlOf = (slot: HTMLElement) =>
    slot.parentElement?.querySelector<HTMLElement>('input, select, textarea') ?? null;

  const clear = () => {
    summary.replaceChildren();
    result.replaceChildren();
    for (const slot of errorSlots) {
      slot.hidden = true;
      slot.textContent = '';
      controlOf(slot)?.removeAttribute('aria-invalid');
    }
  };

  const note = (cls: string, ...lines: Array<string | Node>) => {
    const box = document.createElement('div');
    box.className = `notice ${cls}`;
    for (const line of lines) {
      const p = document.createElement('p');
      p.append(line);
      box.append(p);
    }
    return box;
  };

  const showErrors = (errors: ProblemError[], lead: string) => {
    const unplaced: string[] = [];
    let first: HTMLElement | null = null;
    for (const e of errors) {
      const detail = e.detail ?? 'is not valid';
      const slot = slotFor(e.pointer ?? `/${e.parameter ?? ''}`);
      if (!slot) {
        unplaced.push(`${e.pointer ?? e.parameter ?? 'request'}: ${detail}`);
        continue;
      }
      slot.textContent = slot.textContent ? `${slot.textContent} ${detail}` : detail;
      slot.hidden = false;
      const control = controlOf(slot);
      control?.setAttribute('aria-invalid', 'true');
      first ??= control;
    }
    const box = note('bad', lead, ...unplaced);
    box.setAttribute('role', 'alert');
    summary.replaceChildren(box);
    (first ?? summary).focus();
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clear();
    const data = new FormData(form);
    const text = (name: string): string | null => {
      const v = String(data.get(name) ?? '').trim();
      return v === '' ? null : v;
    };
    const missing = REQUIRED.filter(([name]) => text(name) === null).map(([name, detail]) => ({
      pointer: `/${name}`,
      detail,
    }));
    if (missing.length > 0) {
      showErrors(
        missing,
        `The report was not sent: ${missing.length === 1 ? 'one field needs' : `${missing.length} fields need`} your attention.`,
      );
      return;
    }
    const [targetType = 'work', targetId = ''] = String(data.get('target') ?? 'work|').split('|');
    const body = {
      workSlug: form.dataset.workSlug ?? null,
      targetType,
      targetId: targetId === '' ? null : Number(targetId),
      fieldName: text('fieldName'),
      currentValue: text('currentValue'),
      proposedValue: text('proposedValue'),
      rationale: text('rationale'),
      evidenceUrl: text('evidenceUrl'),
      reporterName: text('reporterName'),
      reporterKind: text('reporterKind') ?? 'Human',
    };
    button.disabled = true;
    result.textContent = 'Sending the report …';
    try {
      const res = await fetch(form.action, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, application/problem+json' },
        body: JSON.stringify(body),
      });
      const payload = (await res.json().catch(() => null)) as {
        data?: { trackingCode?: string; status?: string };
        detail?: string;
        errors?: ProblemError[];
      } | null;
      result.textContent = '';
      const code = payload?.data?.trackingCode;
      if (res.ok && code) {
        const link = document.createElement('a');
        link.href = `${form.dataset.track ?? '/track/'}${encodeURIComponent(code)}`;
        link.textContent = `Follow it on its tracking page`;
        const codeEl = document.createElement('code');
        codeEl.className = 'tracking-code';
        codeEl.textContent = code;
        const box = note('ok', 'Thank you. Your report is queued for a person to review.', 'Tracking code: ', link);
        box.children[1]!.append(codeEl, ` (status: ${payload?.data?.status ?? 'pending'})`);
        box.children[2]!.append('. Nothing in the catalog changes until a reviewer applies it.');
        box.tabIndex = -1;
        result.replaceChildren(box);
        box.focus();
        return;
      }
      if (Array.isArray(payload?.errors) && payload.errors.length > 0) {
        showErrors(
          payload.errors,
          `The archive did not accept the report: ${payload.errors.length === 1 ? 'one field needs' : `${payload.errors.length} fields need`} a change.`,
        );
        return;
      }
      const retry = res.headers.get('Retry-After');
      showErrors(
        [],
        `The report was not sent (HTTP ${res.status}). ${payload?.detail ?? ''}${retry ? ` Try again in ${retry} seconds.` : ''}`.trim(),
      );
    } catch {
      showErrors([], 'The report could not be sent: the archive did not answer. Nothing was recorded; try again.');
    } finally {
      button.disabled = false;
    }
  });
}

const form = document.getElementById('correction-form');
if (form instanceof HTMLFormElement) setup(form);
