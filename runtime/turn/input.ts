export const MAX_UTTERANCE_CHARS = 5000;

// C0/C1 controls except tab, newline and carriage return, which speech and typing both produce.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

export type InputCheck = { ok: true; text: string } | { ok: false; reason: 'empty' | 'too_long' | 'control_chars'; message: string };

/** The first guardrail: what cannot be a child's utterance is turned away kindly before routing. */
export function checkUtterance(raw: string): InputCheck {
  const text = raw.trim();
  if (text.length === 0) return { ok: false, reason: 'empty', message: '我没听清楚，可以再说一遍吗？' };
  if ([...text].length > MAX_UTTERANCE_CHARS) return { ok: false, reason: 'too_long', message: '这段话太长啦，我们一句一句说好吗？' };
  if (CONTROL.test(text)) return { ok: false, reason: 'control_chars', message: '这句话里有我看不懂的符号，可以再说一遍吗？' };
  return { ok: true, text };
}
