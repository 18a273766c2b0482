// Runs in the page for browser_snapshot: marks each visible element a person can act on with
// data-sentient-ref="eN" (the refs the model names) and returns the page's facts as JSON text.
// Refs from an earlier snapshot are cleared first, so a ref names one element at a time.
(() => {
  const SELECTOR = [
    'a[href]', 'button', 'input:not([type=hidden])', 'select', 'textarea', 'summary',
    '[role=button]', '[role=link]', '[role=checkbox]', '[role=radio]', '[role=tab]',
    '[role=menuitem]', '[role=combobox]', '[role=textbox]', '[role=switch]', '[role=option]',
    '[contenteditable=""]', '[contenteditable=true]',
  ].join(',');
  const clean = (t) => (t || '').replace(/\s+/g, ' ').trim();
  const cut = (t, n) => (t.length > n ? t.slice(0, n - 1) + '…' : t);
  const visible = (e) => {
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const s = getComputedStyle(e);
    return s.visibility !== 'hidden' && s.display !== 'none';
  };
  const labelled = (e) => {
    const by = e.getAttribute('aria-labelledby');
    if (by) {
      const t = by.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean)
        .map((x) => x.innerText).join(' ');
      if (clean(t)) return clean(t);
    }
    return '';
  };
  const fieldLabel = (e) => {
    if (e.labels && e.labels.length) return clean(Array.from(e.labels).map((l) => l.innerText).join(' '));
    return '';
  };
  const nameOf = (e, role) => {
    const aria = clean(e.getAttribute('aria-label')) || labelled(e);
    if (aria) return aria;
    if (['textbox', 'searchbox', 'combobox', 'checkbox', 'radio', 'switch', 'slider', 'spinbutton'].includes(role)) {
      return fieldLabel(e) || clean(e.getAttribute('placeholder')) || clean(e.getAttribute('title')) || clean(e.getAttribute('name'));
    }
    const text = clean(e.innerText);
    if (text) return text;
    if (e.tagName === 'INPUT') return clean(e.value) || clean(e.getAttribute('title'));
    const img = e.querySelector && e.querySelector('img[alt]');
    return clean(img && img.getAttribute('alt')) || clean(e.getAttribute('title'));
  };
  const roleOf = (e) => {
    const explicit = e.getAttribute('role');
    if (explicit) return explicit;
    const tag = e.tagName;
    if (tag === 'A') return 'link';
    if (tag === 'BUTTON' || tag === 'SUMMARY') return 'button';
    if (tag === 'SELECT') return 'combobox';
    if (tag === 'TEXTAREA' || e.isContentEditable) return 'textbox';
    if (tag === 'INPUT') {
      const t = (e.getAttribute('type') || 'text').toLowerCase();
      if (['button', 'submit', 'reset', 'image'].includes(t)) return 'button';
      if (t === 'checkbox') return 'checkbox';
      if (t === 'radio') return 'radio';
      if (t === 'range') return 'slider';
      if (t === 'number') return 'spinbutton';
      if (t === 'search') return 'searchbox';
      return 'textbox';
    }
    return 'generic';
  };
  const isPaymentField = (f) => {
    const ac = (f.getAttribute('autocomplete') || '').toLowerCase();
    if (ac.startsWith('cc-') || ac.includes(' cc-')) return true;
    const hint = ((f.name || '') + ' ' + (f.id || '')).toLowerCase().replace(/[^a-z]/g, '');
    return /cardnumber|ccnumber|creditcard|cvv|cvc|cardexp|securitycode/.test(hint);
  };
  const formFacts = new Map();
  const factsOf = (form) => {
    if (!form) return { payment: false, buttons: '' };
    if (!formFacts.has(form)) {
      const payment = Array.from(form.elements || []).some(isPaymentField);
      const buttons = Array.from(form.querySelectorAll('button, input[type=submit], input[type=button]'))
        .map((b) => clean(b.innerText || b.value || b.getAttribute('aria-label'))).join(' | ');
      formFacts.set(form, { payment, buttons: cut(buttons, 300) });
    }
    return formFacts.get(form);
  };

  document.querySelectorAll('[data-sentient-ref]').forEach((e) => e.removeAttribute('data-sentient-ref'));
  const elements = [];
  let n = 0;
  for (const e of document.querySelectorAll(SELECTOR)) {
    if (!visible(e)) continue;
    n += 1;
    const ref = 'e' + n;
    e.setAttribute('data-sentient-ref', ref);
    const role = roleOf(e);
    const tag = e.tagName;
    const type = tag === 'INPUT' ? (e.getAttribute('type') || 'text').toLowerCase() : (tag === 'TEXTAREA' ? 'textarea' : '');
    const item = {
      ref, role, name: cut(nameOf(e, role), 120),
      input_type: type,
      autocomplete: e.getAttribute('autocomplete') || '',
      hints: cut(clean([e.getAttribute('name'), e.id, e.getAttribute('placeholder'), fieldLabel(e), e.getAttribute('aria-label')].filter(Boolean).join(' ')), 200),
      disabled: !!e.disabled || e.getAttribute('aria-disabled') === 'true',
      focused: document.activeElement === e,
      checked: (type === 'checkbox' || type === 'radio') ? !!e.checked : e.getAttribute('aria-checked') === 'true',
      form: factsOf(e.form || e.closest('form')),
      submits: (tag === 'BUTTON' && (e.getAttribute('type') || 'submit').toLowerCase() === 'submit' && !!e.form)
        || (tag === 'INPUT' && ['submit', 'image'].includes(type)),
      message_box: false,
    };
    if (tag === 'SELECT') {
      const chosen = e.selectedOptions && e.selectedOptions[0];
      item.value = chosen ? clean(chosen.label || chosen.text) : '';
      item.options = Array.from(e.options).slice(0, 50).map((o) => cut(clean(o.label || o.text), 60));
    } else if (role === 'textbox' || role === 'searchbox' || role === 'spinbutton' || role === 'slider' || role === 'combobox') {
      const v = e.isContentEditable ? e.innerText : e.value;
      item.value = item.input_type === 'password' ? (v ? '••••' : '') : cut(clean(v), 200);
    }
    if (role === 'textbox' && (tag === 'TEXTAREA' || e.isContentEditable)) {
      item.message_box = /message|reply|comment|tweet|post|chat|write/i.test(item.hints + ' ' + item.name);
    }
    if (tag === 'A') item.href = e.getAttribute('href');
    elements.push(item);
  }
  const captcha = !!document.querySelector(
    'iframe[src*="recaptcha"], iframe[src*="hcaptcha"], iframe[src*="challenges.cloudflare.com"], .g-recaptcha, .h-captcha, .cf-turnstile');
  const root = document.documentElement;
  return JSON.stringify({
    title: document.title || '',
    url: location.href,
    scroll: { y: Math.round(window.scrollY), height: Math.round(root.scrollHeight), view: Math.round(window.innerHeight) },
    elements,
    text: document.body ? document.body.innerText : '',
    captcha,
  });
})()
