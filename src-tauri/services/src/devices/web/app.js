// Sentient web device app: pairs this browser with the engine as a node (docs/NODES.md, protocol 1)
// and answers the engine's invokes (notifications, display, camera, location, speech, battery).
// Plain JS, no build step. The node token lives only in localStorage and in the hello message:
// never in a URL, never in the console.
'use strict';

(() => {
  const PROTOCOL = 1;
  const APP_VERSION = 'web-1';
  const STORE_KEY = 'sentient.node';
  const NAME_KEY = 'sentient.node.name';
  const HELLO_TIMEOUT_MS = 15000;
  const MAX_NOTES = 20;
  const DEFAULT_DISPLAY_MS = 15000;

  const $ = (id) => document.getElementById(id);
  const el = {
    status: $('status'),
    statusText: $('status-text'),
    error: $('error'),
    pair: $('pair'),
    pairForm: $('pair-form'),
    pairCode: $('pair-code'),
    deviceName: $('device-name'),
    pairSubmit: $('pair-submit'),
    retryBox: $('retry-box'),
    retryText: $('retry-text'),
    reconnect: $('reconnect'),
    stop: $('stop'),
    stopState: $('stop-state'),
    banner: $('stopped-banner'),
    stoppedDetail: $('stopped-detail'),
    resume: $('resume'),
    displayEmpty: $('display-empty'),
    displayContent: $('display-content'),
    displayImage: $('display-image'),
    displayHeading: $('display-heading'),
    displayText: $('display-text'),
    notes: $('notes'),
    notesEmpty: $('notes-empty'),
    press: $('press'),
    allowNotifications: $('allow-notifications'),
    notifyState: $('notify-state'),
    activity: $('activity'),
    forget: $('forget'),
    forgetConfirm: $('forget-confirm'),
    forgetYes: $('forget-yes'),
    forgetNo: $('forget-no'),
    about: $('about'),
    live: $('live'),
    liveState: $('live-state'),
    liveImage: $('live-image'),
    liveForm: $('live-form'),
    liveText: $('live-text'),
    liveEnter: $('live-enter'),
    liveClose: $('live-close'),
  };

  // ---- Platform -------------------------------------------------------------------------------

  const ua = navigator.userAgent || '';

  function browserName() {
    if (/EdgA?\//.test(ua)) return 'Edge';
    if (/SamsungBrowser\//.test(ua)) return 'Samsung Internet';
    if (/OPR\/|Opera/.test(ua)) return 'Opera';
    if (/Firefox\/|FxiOS\//.test(ua)) return 'Firefox';
    if (/CriOS\/|Chrome\/|Chromium\//.test(ua)) return 'Chrome';
    if (/Safari\//.test(ua)) return 'Safari';
    return 'Browser';
  }

  function isIPad() {
    return /iPad/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1);
  }

  function osName() {
    let m;
    if (/iPhone|iPod/.test(ua)) {
      m = ua.match(/OS (\d+)[_.](\d+)/);
      return m ? `iOS ${m[1]}.${m[2]}` : 'iOS';
    }
    if (isIPad()) {
      m = ua.match(/OS (\d+)[_.](\d+)/);
      return m ? `iPadOS ${m[1]}.${m[2]}` : 'iPadOS';
    }
    if ((m = ua.match(/Android (\d+(?:\.\d+)?)/))) return `Android ${m[1]}`;
    if (/Android/.test(ua)) return 'Android';
    if (/Windows/.test(ua)) return 'Windows';
    if (/CrOS/.test(ua)) return 'ChromeOS';
    if (/Macintosh|Mac OS X/.test(ua)) return 'macOS';
    if (/Linux/.test(ua)) return 'Linux';
    return 'web';
  }

  function deviceWord() {
    if (/iPhone|iPod/.test(ua)) return 'iPhone';
    if (isIPad()) return 'iPad';
    if (/Android/.test(ua)) return /Mobile/.test(ua) ? 'Phone' : 'Tablet';
    if (/Mobi/.test(ua)) return 'Phone';
    if (/Macintosh|Windows|Linux|CrOS/.test(ua)) return 'Computer';
    return 'Phone';
  }

  const BROWSER = browserName();
  const OS = osName();
  const PLATFORM = `${OS} (${BROWSER}, web)`;
  const DEFAULT_NAME = `${deviceWord()} (${BROWSER})`;

  const has = {
    camera: !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia),
    location: !!navigator.geolocation,
    battery: typeof navigator.getBattery === 'function',
    speak: typeof window.speechSynthesis !== 'undefined' && typeof window.SpeechSynthesisUtterance === 'function',
    notifications: typeof window.Notification === 'function',
  };

  function capabilities() {
    const caps = ['notify.show', 'display.text', 'display.card', 'button.events'];
    if (has.camera) caps.push('camera.photo');
    if (has.location) caps.push('location.get');
    if (has.battery) caps.push('battery');
    if (has.speak) caps.push('speak');
    return caps;
  }

  // ---- Storage --------------------------------------------------------------------------------

  function loadPairing() {
    try {
      const raw = localStorage.getItem(STORE_KEY);
      if (!raw) return null;
      const v = JSON.parse(raw);
      return v && typeof v.token === 'string' && v.token ? v : null;
    } catch {
      return null;
    }
  }

  function savePairing(v) {
    try {
      localStorage.setItem(STORE_KEY, JSON.stringify(v));
    } catch {
      // Private mode without storage: the pairing lasts as long as the page.
    }
    memoryPairing = v;
  }

  function clearPairing() {
    try {
      localStorage.removeItem(STORE_KEY);
    } catch {
      // ignore
    }
    memoryPairing = null;
  }

  function storedName() {
    try {
      return localStorage.getItem(NAME_KEY) || '';
    } catch {
      return '';
    }
  }

  function saveName(name) {
    try {
      localStorage.setItem(NAME_KEY, name);
    } catch {
      // ignore
    }
  }

  let memoryPairing = loadPairing();
  const pairing = () => loadPairing() || memoryPairing;

  // ---- Pairing code from the link ------------------------------------------------------------

  function codeFromFragment() {
    const hash = (location.hash || '').replace(/^#/, '');
    if (!hash) return null;
    const params = new URLSearchParams(hash);
    const code = (params.get('code') || '').replace(/\D/g, '');
    return code.length === 6 ? code : null;
  }

  function clearFragment() {
    if (location.hash) {
      history.replaceState(history.state, '', location.pathname + location.search);
    }
  }

  // ---- Connection state ------------------------------------------------------------------------

  let ws = null;
  let pendingCode = codeFromFragment();
  let attempt = 0;
  let retryTimer = null;
  let countdownTimer = null;
  let keepaliveTimer = null;
  let helloTimer = null;
  let lockUntil = 0; // rate_limited: no code before this time
  let lockTimer = null;
  let welcomed = false;
  let lastError = null; // {code, message} of the last error on this socket
  let stopState = null;
  let stopWaiting = null;
  let lastBattery = null;
  let batteryManager = null;

  function setStatus(state, text) {
    el.status.dataset.state = state;
    el.statusText.textContent = text;
  }

  function showError(message) {
    if (message) {
      el.error.textContent = message;
      el.error.hidden = false;
    } else {
      el.error.textContent = '';
      el.error.hidden = true;
    }
  }

  function setActivity(text) {
    el.activity.textContent = text ? `${timeLabel(new Date())} · ${text}` : '';
  }

  function timeLabel(d) {
    return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  }

  function isOpen() {
    return !!ws && ws.readyState === WebSocket.OPEN && welcomed;
  }

  function updateControls() {
    const open = isOpen();
    el.stop.disabled = !open;
    el.resume.disabled = !open;
    el.press.disabled = !open;
    el.forget.hidden = !pairing() || !el.forgetConfirm.hidden;
    renderStop();
  }

  function showPairForm(message) {
    el.pair.hidden = false;
    el.retryBox.hidden = true;
    if (!el.deviceName.value) el.deviceName.value = storedName() || DEFAULT_NAME;
    if (pendingCode && !el.pairCode.value) el.pairCode.value = pendingCode;
    setStatus('unpaired', 'Not paired');
    document.body.dataset.paired = 'no';
    if (message !== undefined) showError(message);
    updateLock();
    updateControls();
  }

  function hidePairForm() {
    el.pair.hidden = true;
  }

  function updateLock() {
    clearInterval(lockTimer);
    const tick = () => {
      const left = Math.ceil((lockUntil - Date.now()) / 1000);
      if (left > 0) {
        el.pairSubmit.disabled = true;
        el.pairSubmit.textContent = `Wait ${left} s`;
      } else {
        clearInterval(lockTimer);
        el.pairSubmit.disabled = false;
        el.pairSubmit.textContent = 'Pair';
      }
    };
    tick();
    if (lockUntil > Date.now()) lockTimer = setInterval(tick, 1000);
  }

  function clearTimers() {
    clearTimeout(retryTimer);
    clearInterval(countdownTimer);
    clearInterval(keepaliveTimer);
    clearTimeout(helloTimer);
    retryTimer = countdownTimer = keepaliveTimer = helloTimer = null;
  }

  function socketUrl() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    return `${scheme}://${location.host}/ws/node`;
  }

  function deviceName() {
    const typed = (el.deviceName.value || '').trim();
    return (typed || storedName() || DEFAULT_NAME).slice(0, 60);
  }

  /** Opens the socket with the stored token, else with the pending code; else asks for a code. */
  function connect() {
    clearTimers();
    const stored = pairing();
    if (!stored && !pendingCode) {
      showPairForm();
      return;
    }
    if (!stored && pendingCode && lockUntil > Date.now()) {
      showPairForm();
      return;
    }
    closeSocket();
    hidePairForm();
    document.body.dataset.paired = 'yes';
    el.retryBox.hidden = true;
    welcomed = false;
    lastError = null;
    setStatus('connecting', 'Connecting…');
    updateControls();

    let sock;
    try {
      sock = new WebSocket(socketUrl());
    } catch (err) {
      scheduleRetry();
      return;
    }
    sock.binaryType = 'arraybuffer';
    ws = sock;
    const useToken = !!stored;
    sock.onopen = () => {
      if (ws !== sock) return;
      sendHello(useToken ? { token: stored.token } : { pair_code: pendingCode });
    };
    sock.onmessage = (ev) => {
      if (ws !== sock) return;
      onMessage(sock, ev.data);
    };
    sock.onclose = (ev) => {
      if (ws !== sock) return;
      ws = null;
      onClosed(ev, useToken);
    };
    sock.onerror = () => {
      // onclose follows and decides what to do.
    };
    helloTimer = setTimeout(() => {
      if (ws === sock && !welcomed) {
        try {
          sock.close(4000, 'no welcome');
        } catch {
          // ignore
        }
      }
    }, HELLO_TIMEOUT_MS + 5000);
  }

  function closeSocket() {
    const old = ws;
    ws = null;
    welcomed = false;
    if (old) {
      old.onopen = old.onmessage = old.onclose = old.onerror = null;
      try {
        old.close(1000, 'bye');
      } catch {
        // ignore
      }
    }
  }

  function send(sock, msg) {
    if (!sock || sock.readyState !== WebSocket.OPEN) return false;
    try {
      sock.send(JSON.stringify(msg));
      return true;
    } catch {
      return false;
    }
  }

  function sendHello(auth) {
    const msg = {
      type: 'hello',
      protocol: PROTOCOL,
      name: deviceName(),
      kind: 'phone',
      platform: PLATFORM,
      app_version: APP_VERSION,
      capabilities: capabilities(),
      ...auth,
    };
    if (lastBattery) msg.state = { battery: lastBattery.battery, charging: lastBattery.charging };
    send(ws, msg);
  }

  function onClosed(ev, usedToken) {
    clearTimers();
    welcomed = false;
    const code = (lastError && lastError.code) || closeReasonCode(ev);
    lastError = null;
    updateControls();

    if (code === 'bad_token' || code === 'revoked' || code === 'pairing_required') {
      clearPairing();
      if (usedToken && pendingCode) {
        // "a pair_code is used if the token is rejected"
        attempt = 0;
        connect();
        return;
      }
      showPairForm(
        el.error.hidden
          ? code === 'revoked'
            ? 'This device was removed in Sentient. Pair it again with a new code.'
            : 'This device is not paired. Type a new code from Sentient.'
          : undefined,
      );
      return;
    }
    if (code === 'bad_code') {
      pendingCode = null;
      clearFragment();
      el.pairCode.value = '';
      showPairForm(el.error.hidden ? 'That code is wrong or expired. Type the new code shown in Sentient.' : undefined);
      el.pairCode.focus();
      return;
    }
    if (code === 'rate_limited') {
      lockUntil = Date.now() + 60000;
      if (!pairing()) {
        pendingCode = null;
        clearFragment();
        showPairForm();
        return;
      }
      scheduleRetry(60);
      return;
    }
    if (code === 'replaced') {
      setStatus('disconnected', 'Disconnected — this device connected again somewhere else');
      el.retryText.textContent = 'Another tab or window took over this device. Reconnect here to take it back.';
      el.retryBox.hidden = false;
      return;
    }
    if (code === 'disabled') {
      scheduleRetry(180 + Math.round(Math.random() * 60));
      return;
    }
    scheduleRetry();
  }

  function closeReasonCode(ev) {
    const known = ['pairing_required', 'bad_code', 'bad_token', 'revoked', 'rate_limited', 'disabled', 'protocol', 'replaced'];
    if (ev && known.includes(ev.reason)) return ev.reason;
    if (ev && ev.code === 4429) return 'rate_limited';
    if (ev && ev.code === 4409) return 'replaced';
    if (ev && ev.code === 4403) return 'disabled';
    return null;
  }

  /** Backoff 1, 2, 4 … 30 s plus 0-50% jitter (or a fixed wait), with a visible countdown. */
  function scheduleRetry(fixedSeconds) {
    clearTimers();
    let delay;
    if (fixedSeconds) {
      delay = fixedSeconds * 1000;
    } else {
      const base = Math.min(30, 2 ** attempt);
      attempt += 1;
      delay = base * 1000 * (1 + Math.random() * 0.5);
    }
    const due = Date.now() + delay;
    const tick = () => {
      const left = Math.max(1, Math.ceil((due - Date.now()) / 1000));
      setStatus('disconnected', `Disconnected — retrying in ${left} s`);
    };
    tick();
    el.retryText.textContent = navigator.onLine === false ? 'This device is offline.' : 'Sentient is not reachable right now.';
    el.retryBox.hidden = false;
    countdownTimer = setInterval(tick, 1000);
    retryTimer = setTimeout(connect, delay);
  }

  // ---- Messages from the engine ---------------------------------------------------------------

  function onMessage(sock, data) {
    if (typeof data !== 'string') return; // binary follow frames: not used by this app's capabilities
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object') return;
    switch (msg.type) {
      case 'welcome':
        onWelcome(sock, msg);
        break;
      case 'error':
        lastError = { code: String(msg.code || ''), message: String(msg.message || '') };
        if (msg.code !== 'unknown_type' && msg.message) showError(msg.message);
        break;
      case 'invoke':
        onInvoke(sock, msg);
        break;
      case 'stop_state':
        onStopState(msg);
        break;
      case 'pong':
      default:
        break;
    }
  }

  function onWelcome(sock, msg) {
    clearTimeout(helloTimer);
    welcomed = true;
    attempt = 0;
    lockUntil = 0;
    showError('');
    const prev = pairing() || {};
    const name = String(msg.name || prev.name || deviceName());
    const next = {
      token: typeof msg.token === 'string' && msg.token ? msg.token : prev.token,
      node_id: String(msg.node_id || prev.node_id || ''),
      name,
    };
    if (next.token) savePairing(next);
    if (pendingCode || location.hash) {
      pendingCode = null;
      clearFragment();
    }
    el.pairCode.value = '';
    hidePairForm();
    el.retryBox.hidden = true;
    setStatus('connected', `Connected as ${name}`);
    el.about.textContent = `${msg.assistant || 'Sentient'} ${msg.server_version || ''} · ${PLATFORM}`.trim();
    // welcome says `stopped: true` while Stop everything is on; no flag means running.
    onStopState({ stopped: msg.stopped === true, stopped_at: msg.stopped_at, source: msg.source });
    const every = Math.max(5, Number(msg.keepalive_s) || 60) * 1000;
    clearInterval(keepaliveTimer);
    keepaliveTimer = setInterval(() => {
      if (ws === sock) send(sock, { type: 'ping' });
    }, every);
    updateControls();
    if (lastBattery) send(sock, { type: 'state', battery: lastBattery.battery, charging: lastBattery.charging });
  }

  // ---- Stop everything ------------------------------------------------------------------------

  const SOURCE_LABEL = {
    device: 'from a device',
    desktop: 'from the desktop',
    tray: 'from the tray menu',
    hotkey: 'with the shortcut',
    telegram: 'from Telegram',
    discord: 'from Discord',
  };

  function onStopState(msg) {
    stopState = {
      stopped: !!msg.stopped,
      stopped_at: msg.stopped_at || null,
      source: msg.source || null,
    };
    if (stopWaiting) {
      clearTimeout(stopWaiting);
      stopWaiting = null;
    }
    renderStop();
  }

  function renderStop() {
    const open = isOpen();
    const stopped = !!(stopState && stopState.stopped);
    el.banner.hidden = !stopped;
    el.stop.setAttribute('aria-pressed', stopped ? 'true' : 'false');
    if (stopped) {
      let detail = '';
      if (stopState.stopped_at) {
        const at = new Date(stopState.stopped_at);
        if (!Number.isNaN(at.getTime())) detail = `since ${timeLabel(at)}`;
      }
      const src = SOURCE_LABEL[stopState.source] || (stopState.source ? `from ${stopState.source}` : '');
      detail = [detail, src].filter(Boolean).join(' ');
      el.stoppedDetail.textContent = detail ? `Stopped ${detail}. Nothing runs until you resume.` : 'Nothing runs until you resume.';
    }
    if (stopWaiting) return;
    if (!open) {
      el.stopState.textContent = 'Not connected';
    } else if (stopped) {
      el.stopState.textContent = 'Sentient is stopped';
    } else if (stopState) {
      el.stopState.textContent = 'Sentient is running';
    } else {
      el.stopState.textContent = 'Stops all of Sentient’s work at once';
    }
  }

  function sendStop(type) {
    if (!isOpen()) return;
    if (!send(ws, { type })) return;
    el.stopState.textContent = type === 'stop_all' ? 'Stopping…' : 'Resuming…';
    clearTimeout(stopWaiting);
    stopWaiting = setTimeout(() => {
      stopWaiting = null;
      renderStop();
      showError('Sentient did not confirm. Check the computer.');
    }, 5000);
  }

  // ---- Live view of a browser page waiting for the person ----------------------------------------
  // Pictures at most twice a second while open; taps and typing go to the page over HTTPS with
  // the device token. What is typed is never kept here.

  const LIVE_EVERY_MS = 500;
  let liveTimer = null;
  let liveUrl = null;
  let liveOpen = false;

  function liveHeaders(json) {
    const p = pairing();
    const h = { Authorization: `Bearer ${p ? p.token : ''}` };
    if (json) h['Content-Type'] = 'application/json';
    return h;
  }

  function openLiveView() {
    liveOpen = true;
    el.live.hidden = false;
    el.liveState.textContent = 'Loading the page…';
    el.live.scrollIntoView({ block: 'start' });
    clearTimeout(liveTimer);
    nextLivePicture();
  }

  function closeLiveView(message) {
    liveOpen = false;
    clearTimeout(liveTimer);
    el.liveText.value = '';
    if (message) {
      el.liveState.textContent = message;
      el.liveImage.hidden = true;
      liveTimer = setTimeout(() => {
        el.live.hidden = true;
      }, 4000);
    } else {
      el.live.hidden = true;
    }
    if (liveUrl) {
      URL.revokeObjectURL(liveUrl);
      liveUrl = null;
    }
  }

  async function nextLivePicture() {
    if (!liveOpen) return;
    try {
      const res = await fetch('/api/nodes/browser/frame', { headers: liveHeaders(false), cache: 'no-store' });
      if (res.status === 409) {
        closeLiveView('Done: the page moved on, and Sentient carries on.');
        return;
      }
      if (!res.ok) throw new Error(await detailOf(res));
      const blob = await res.blob();
      const url = URL.createObjectURL(blob);
      el.liveImage.src = url;
      el.liveImage.hidden = false;
      if (liveUrl) URL.revokeObjectURL(liveUrl);
      liveUrl = url;
      el.liveState.textContent = 'Tap the page where you would, then type.';
    } catch (err) {
      el.liveState.textContent = (err && err.message) || 'The page could not be shown. Check the connection.';
    }
    if (liveOpen) liveTimer = setTimeout(nextLivePicture, LIVE_EVERY_MS);
  }

  async function detailOf(res) {
    try {
      const body = await res.json();
      return body.detail || 'Something went wrong.';
    } catch {
      return 'Something went wrong.';
    }
  }

  async function sendLive(input) {
    try {
      const res = await fetch('/api/nodes/browser/input', {
        method: 'POST',
        headers: liveHeaders(true),
        body: JSON.stringify(input),
      });
      if (res.status === 409) {
        closeLiveView('Done: the page moved on, and Sentient carries on.');
        return false;
      }
      if (!res.ok) {
        el.liveState.textContent = await detailOf(res);
        return false;
      }
      return true;
    } catch {
      el.liveState.textContent = 'That didn’t reach the computer. Check the connection.';
      return false;
    }
  }

  el.liveImage.addEventListener('click', (event) => {
    const rect = el.liveImage.getBoundingClientRect();
    if (!rect.width || !rect.height) return;
    const x = Math.min(1, Math.max(0, (event.clientX - rect.left) / rect.width));
    const y = Math.min(1, Math.max(0, (event.clientY - rect.top) / rect.height));
    sendLive({ kind: 'tap', x, y });
  });
  el.liveForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const typed = el.liveText.value;
    if (!typed) return;
    el.liveText.value = '';
    await sendLive({ kind: 'text', text: typed });
  });
  el.liveEnter.addEventListener('click', () => sendLive({ kind: 'key', key: 'enter' }));
  el.liveClose.addEventListener('click', () => closeLiveView(''));

  // ---- Invokes --------------------------------------------------------------------------------

  class InvokeError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }

  const handlers = {
    'notify.show': notifyShow,
    'display.text': displayText,
    'display.card': displayCard,
    'camera.photo': cameraPhoto,
    'location.get': locationGet,
    speak,
    battery: batteryGet,
  };

  async function onInvoke(sock, msg) {
    const id = msg.id;
    if (id === undefined || id === null) return;
    const capability = String(msg.capability || '');
    const params = msg.params && typeof msg.params === 'object' ? msg.params : {};
    const timeoutMs = Number(msg.timeout_ms) > 0 ? Number(msg.timeout_ms) : 20000;
    const handler = Object.prototype.hasOwnProperty.call(handlers, capability) ? handlers[capability] : null;
    let reply;
    if (!handler || !capabilities().includes(capability)) {
      reply = { type: 'result', id, ok: false, error: { code: 'unsupported', message: `This device can't do ${capability || 'that'}.` } };
    } else {
      try {
        const data = await handler(params, timeoutMs);
        reply = { type: 'result', id, ok: true, data };
      } catch (err) {
        const code = err instanceof InvokeError ? err.code : 'failed';
        const message = (err && err.message) || 'Something went wrong on the device.';
        reply = { type: 'result', id, ok: false, error: { code, message } };
      }
    }
    send(sock, reply);
  }

  function text(v) {
    return v === undefined || v === null ? '' : String(v);
  }

  // notify.show {title?, text, tag?} → {shown}
  async function notifyShow(params) {
    const title = text(params.title).trim();
    const body = text(params.text).trim();
    if (!title && !body) throw new InvokeError('bad_params', 'notify.show needs text.');
    const action = params.action && params.action.kind === 'browser_live_view' ? params.action : null;
    addNote(title || 'Sentient', body, text(params.tag), action);
    if (has.notifications && Notification.permission === 'granted') {
      try {
        const opts = { body };
        if (params.tag) opts.tag = String(params.tag);
        const n = new Notification(title || 'Sentient', opts);
        n.onclick = () => {
          window.focus();
          n.close();
        };
      } catch {
        // Chrome on Android allows notifications only from a service worker; the in-page card is shown.
      }
    }
    if (navigator.vibrate) {
      try {
        navigator.vibrate(150);
      } catch {
        // ignore
      }
    }
    return { shown: true };
  }

  function addNote(title, body, tag, action) {
    if (tag) {
      for (const li of el.notes.querySelectorAll('li')) {
        if (li.dataset.tag === tag) li.remove();
      }
    }
    const li = document.createElement('li');
    li.className = 'note';
    li.setAttribute('data-testid', 'device-notification');
    if (tag) li.dataset.tag = tag;
    const t = document.createElement('p');
    t.className = 'note-title';
    t.textContent = title;
    const b = document.createElement('p');
    b.className = 'note-text';
    b.textContent = body;
    const time = document.createElement('span');
    time.className = 'note-time';
    time.textContent = timeLabel(new Date());
    li.append(t);
    if (body) li.append(b);
    if (action) {
      const open = document.createElement('button');
      open.type = 'button';
      open.className = 'btn btn-primary note-action';
      open.textContent = text(action.label) || 'Open';
      open.setAttribute('data-testid', 'device-open-live-view');
      open.addEventListener('click', () => openLiveView());
      li.append(open);
    }
    li.append(time);
    el.notes.prepend(li);
    while (el.notes.children.length > MAX_NOTES) el.notes.lastElementChild.remove();
    el.notesEmpty.hidden = true;
  }

  let displayTimer = null;

  function show(heading, body, image) {
    clearTimeout(displayTimer);
    el.displayHeading.textContent = heading;
    el.displayHeading.hidden = !heading;
    el.displayText.textContent = body;
    if (image) {
      el.displayImage.src = image;
      el.displayImage.hidden = false;
    } else {
      el.displayImage.removeAttribute('src');
      el.displayImage.hidden = true;
    }
    el.displayEmpty.hidden = true;
    el.displayContent.hidden = false;
  }

  function clearDisplayLater(ms) {
    clearTimeout(displayTimer);
    displayTimer = setTimeout(() => {
      el.displayContent.hidden = true;
      el.displayEmpty.hidden = false;
      el.displayImage.removeAttribute('src');
    }, ms);
  }

  function durationOf(params) {
    const d = Number(params.duration_ms);
    return d > 0 ? Math.min(d, 24 * 3600 * 1000) : DEFAULT_DISPLAY_MS;
  }

  // display.text {text, duration_ms?} → {shown}
  async function displayText(params) {
    const body = text(params.text);
    if (!body.trim()) throw new InvokeError('bad_params', 'display.text needs text.');
    show('', body, null);
    clearDisplayLater(durationOf(params));
    return { shown: true };
  }

  // display.card {title?, text, image_base64?, image_mime?, duration_ms?} → {shown}
  async function displayCard(params) {
    const title = text(params.title);
    const body = text(params.text);
    let image = null;
    if (params.image_base64) {
      const mime = text(params.image_mime) || 'image/jpeg';
      if (!/^image\/[a-z0-9.+-]+$/i.test(mime)) throw new InvokeError('bad_params', 'image_mime must be an image type.');
      image = `data:${mime};base64,${String(params.image_base64).replace(/\s/g, '')}`;
    }
    if (!title.trim() && !body.trim() && !image) throw new InvokeError('bad_params', 'display.card needs text.');
    show(title, body, image);
    clearDisplayLater(durationOf(params));
    return { shown: true };
  }

  // camera.photo {facing?, max_width?} → {mime, base64, width, height}
  async function cameraPhoto(params, timeoutMs) {
    const facing = params.facing === 'front' ? 'user' : 'environment';
    const maxWidth = Number(params.max_width) > 0 ? Math.min(Number(params.max_width), 4096) : 1600;
    let stream;
    try {
      stream = await withTimeout(
        navigator.mediaDevices.getUserMedia({
          audio: false,
          video: { facingMode: { ideal: facing }, width: { ideal: 1920 }, height: { ideal: 1080 } },
        }),
        Math.max(1000, timeoutMs - 1500),
        'The camera did not answer in time (is a permission prompt waiting on the device?).',
      );
    } catch (err) {
      throw cameraError(err);
    }
    const video = document.createElement('video');
    try {
      video.muted = true;
      video.playsInline = true;
      video.setAttribute('playsinline', '');
      video.srcObject = stream;
      await withTimeout(
        new Promise((resolve, reject) => {
          video.onloadeddata = resolve;
          video.onerror = () => reject(new InvokeError('camera_failed', 'The camera gave no picture.'));
        }),
        5000,
        'The camera gave no picture.',
      );
      await video.play().catch(() => {});
      // Give auto exposure a moment, then wait for a painted frame.
      await sleep(350);
      await nextFrame(video);
      const vw = video.videoWidth;
      const vh = video.videoHeight;
      if (!vw || !vh) throw new InvokeError('camera_failed', 'The camera gave no picture.');
      const scale = Math.min(1, maxWidth / vw);
      const width = Math.round(vw * scale);
      const height = Math.round(vh * scale);
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      canvas.getContext('2d').drawImage(video, 0, 0, width, height);
      const url = canvas.toDataURL('image/jpeg', 0.85);
      const base64 = url.slice(url.indexOf(',') + 1);
      setActivity('Sentient took a photo.');
      return { mime: 'image/jpeg', base64, width, height };
    } finally {
      for (const track of stream.getTracks()) track.stop();
      video.srcObject = null;
    }
  }

  function cameraError(err) {
    if (err instanceof InvokeError) return err;
    const name = err && err.name;
    if (name === 'NotAllowedError' || name === 'SecurityError' || name === 'PermissionDeniedError') {
      return new InvokeError('permission_denied', 'Camera permission was denied.');
    }
    if (name === 'NotFoundError' || name === 'OverconstrainedError' || name === 'DevicesNotFoundError') {
      return new InvokeError('unavailable', 'This device has no camera it can use.');
    }
    if (name === 'NotReadableError' || name === 'TrackStartError') {
      return new InvokeError('unavailable', 'The camera is busy in another app.');
    }
    return new InvokeError('camera_failed', (err && err.message) || 'The camera failed.');
  }

  function nextFrame(video) {
    return new Promise((resolve) => {
      if (typeof video.requestVideoFrameCallback === 'function') {
        const t = setTimeout(resolve, 500);
        video.requestVideoFrameCallback(() => {
          clearTimeout(t);
          resolve();
        });
      } else {
        requestAnimationFrame(() => resolve());
      }
    });
  }

  // location.get {timeout_ms?} → {lat, lon, accuracy_m}
  function locationGet(params, timeoutMs) {
    const wanted = Number(params.timeout_ms) > 0 ? Number(params.timeout_ms) : 15000;
    const timeout = Math.max(1000, Math.min(wanted, timeoutMs - 1000));
    return new Promise((resolve, reject) => {
      navigator.geolocation.getCurrentPosition(
        (pos) => {
          setActivity('Sentient read your location.');
          resolve({
            lat: pos.coords.latitude,
            lon: pos.coords.longitude,
            accuracy_m: Math.round(pos.coords.accuracy * 10) / 10,
          });
        },
        (err) => {
          if (err && err.code === 1) reject(new InvokeError('permission_denied', 'Location permission was denied.'));
          else if (err && err.code === 3) reject(new InvokeError('timeout', 'The location did not come in time.'));
          else reject(new InvokeError('unavailable', 'The location is not available right now.'));
        },
        { enableHighAccuracy: true, timeout, maximumAge: 60000 },
      );
    });
  }

  // speak {text, lang?} → {spoken}
  function speak(params, timeoutMs) {
    const body = text(params.text).trim();
    if (!body) return Promise.reject(new InvokeError('bad_params', 'speak needs text.'));
    return new Promise((resolve, reject) => {
      const u = new SpeechSynthesisUtterance(body);
      if (params.lang) u.lang = String(params.lang);
      let done = false;
      const finish = (fn) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        fn();
      };
      const timer = setTimeout(
        () => finish(() => reject(new InvokeError('speak_failed', 'The browser did not start speaking. Tap the page once to allow sound.'))),
        Math.max(1000, Math.min(8000, timeoutMs - 1000)),
      );
      u.onstart = () =>
        finish(() => {
          show('', body, null);
          clearDisplayLater(Math.max(4000, body.length * 80));
          resolve({ spoken: true });
        });
      u.onend = () => finish(() => resolve({ spoken: true }));
      u.onerror = (ev) => {
        const e = ev && ev.error;
        if (e === 'not-allowed') finish(() => reject(new InvokeError('permission_denied', 'The browser blocked speech. Tap the page once to allow sound.')));
        else finish(() => reject(new InvokeError('speak_failed', `Speech failed${e ? ` (${e})` : ''}.`)));
      };
      try {
        window.speechSynthesis.speak(u);
      } catch (err) {
        finish(() => reject(new InvokeError('speak_failed', (err && err.message) || 'Speech failed.')));
      }
    });
  }

  // battery → {battery, charging}
  async function batteryGet() {
    const b = await readBattery();
    if (!b) throw new InvokeError('unavailable', 'The battery level is not available.');
    return b;
  }

  async function readBattery() {
    if (!has.battery) return null;
    try {
      if (!batteryManager) batteryManager = await navigator.getBattery();
      return { battery: Math.round(batteryManager.level * 100), charging: !!batteryManager.charging };
    } catch {
      return null;
    }
  }

  async function watchBattery() {
    const b = await readBattery();
    if (!b || !batteryManager) return;
    lastBattery = b;
    const changed = async () => {
      const now = await readBattery();
      if (!now) return;
      if (lastBattery && now.battery === lastBattery.battery && now.charging === lastBattery.charging) return;
      lastBattery = now;
      if (isOpen()) send(ws, { type: 'state', battery: now.battery, charging: now.charging });
    };
    batteryManager.addEventListener('levelchange', changed);
    batteryManager.addEventListener('chargingchange', changed);
    if (isOpen()) send(ws, { type: 'state', battery: b.battery, charging: b.charging });
  }

  function sleep(ms) {
    return new Promise((r) => setTimeout(r, ms));
  }

  function withTimeout(promise, ms, message) {
    let t;
    return Promise.race([
      promise,
      new Promise((_, reject) => {
        t = setTimeout(() => reject(new InvokeError('timeout', message)), ms);
      }),
    ]).finally(() => clearTimeout(t));
  }

  // ---- Notification permission ----------------------------------------------------------------

  function renderNotifyPermission() {
    if (!has.notifications) {
      el.allowNotifications.hidden = true;
      el.notifyState.hidden = true;
      return;
    }
    const p = Notification.permission;
    el.allowNotifications.hidden = p !== 'default';
    el.notifyState.hidden = p === 'default';
    el.notifyState.textContent =
      p === 'granted'
        ? 'System notifications are on.'
        : 'Notifications are blocked in this browser’s settings; they show on this page only.';
  }

  // ---- Wiring ---------------------------------------------------------------------------------

  el.pairForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const code = (el.pairCode.value || '').replace(/\D/g, '');
    if (code.length !== 6) {
      showError('The pairing code has 6 digits.');
      el.pairCode.focus();
      return;
    }
    if (lockUntil > Date.now()) return;
    const name = (el.deviceName.value || '').trim() || DEFAULT_NAME;
    el.deviceName.value = name;
    saveName(name);
    showError('');
    pendingCode = code;
    attempt = 0;
    connect();
  });

  el.pairCode.addEventListener('input', () => {
    const digits = el.pairCode.value.replace(/\D/g, '').slice(0, 6);
    if (digits !== el.pairCode.value) el.pairCode.value = digits;
  });

  el.reconnect.addEventListener('click', () => {
    attempt = 0;
    connect();
  });

  el.stop.addEventListener('click', () => sendStop('stop_all'));
  el.resume.addEventListener('click', () => sendStop('resume'));

  el.press.addEventListener('click', () => {
    if (isOpen() && send(ws, { type: 'event', event: 'button', data: { action: 'press' } })) {
      setActivity('Button press sent.');
    }
  });

  el.allowNotifications.addEventListener('click', async () => {
    try {
      const r = Notification.requestPermission();
      if (r && typeof r.then === 'function') await r;
    } catch {
      // old Safari uses a callback; the permission is read again below
    }
    renderNotifyPermission();
  });

  el.forget.addEventListener('click', () => {
    el.forget.hidden = true;
    el.forgetConfirm.hidden = false;
    el.forgetYes.focus();
  });
  el.forgetNo.addEventListener('click', () => {
    el.forgetConfirm.hidden = true;
    updateControls();
  });
  el.forgetYes.addEventListener('click', () => {
    el.forgetConfirm.hidden = true;
    clearTimers();
    closeSocket();
    clearPairing();
    pendingCode = null;
    stopState = null;
    showError('');
    setActivity('');
    showPairForm();
    setActivity('This computer was forgotten. Remove the device in Sentient › Devices too.');
  });

  // Mobile browsers speak only after the user touched the page once: unlock speech on the first tap.
  if (has.speak) {
    const unlock = () => {
      document.removeEventListener('pointerdown', unlock, true);
      try {
        const u = new SpeechSynthesisUtterance(' ');
        u.volume = 0;
        window.speechSynthesis.speak(u);
      } catch {
        // ignore
      }
    };
    document.addEventListener('pointerdown', unlock, true);
  }

  // Back from the background or the network: reconnect now instead of waiting out the backoff.
  function wakeUp() {
    if (retryTimer && (document.visibilityState === 'visible') && navigator.onLine !== false) {
      attempt = Math.max(0, attempt - 1);
      connect();
    }
  }
  document.addEventListener('visibilitychange', wakeUp);
  window.addEventListener('online', wakeUp);

  // A new pairing link opened in this tab.
  window.addEventListener('hashchange', () => {
    const code = codeFromFragment();
    if (!code) return;
    pendingCode = code;
    if (!isOpen()) {
      attempt = 0;
      connect();
    }
  });

  window.addEventListener('pagehide', () => {
    clearTimers();
    closeSocket();
  });

  el.deviceName.value = storedName() || (pairing() && pairing().name) || DEFAULT_NAME;
  renderNotifyPermission();
  renderStop();
  if (!window.WebSocket) {
    setStatus('unpaired', 'This browser cannot connect (no WebSocket support)');
    return;
  }
  watchBattery();
  connect();
})();
