// The lamp simulator page: shows what the projector shows, sends typed utterances over the
// authenticated WebSocket API, and uploads images that stand for the camera.
(function () {
  'use strict';
  const token = document.querySelector('meta[name="lamp-token"]').content;
  const log = document.getElementById('log');
  const projector = document.getElementById('projector');
  const status = document.getElementById('status');
  const scene = document.getElementById('scene');
  const voice = document.getElementById('voice');
  const voiceState = document.getElementById('voice-state');
  const heard = document.getElementById('heard');
  let ws;
  let nextId = 1;

  function addLine(cls, text) {
    const li = document.createElement('li');
    li.className = cls;
    li.textContent = text;
    log.appendChild(li);
    log.scrollTop = log.scrollHeight;
  }

  function showCard(card) {
    projector.replaceChildren();
    if (!card) {
      const p = document.createElement('p');
      p.className = 'empty';
      p.textContent = '(nothing projected)';
      projector.appendChild(p);
      return;
    }
    if (card.kind === 'homework') return showHomework(card);
    if (card.next_review) card = Object.assign({}, card, { subtitle: (card.subtitle || '') + ' · 下次复习 ' + new Date(card.next_review).toLocaleDateString() });
    for (const key of ['title', 'subtitle']) {
      if (!card[key]) continue;
      const t = document.createElement('div');
      t.className = key;
      t.textContent = card[key];
      projector.appendChild(t);
    }
    // Marks come with the line and column the checker means, so the page never counts itself.
    const byLine = {};
    for (const m of card.marks || []) {
      const row = byLine[m.line] || (byLine[m.line] = []);
      for (let i = 0; i < m.len; i++) row[m.col + i] = m;
    }
    (card.lines || []).forEach(function (line, index) {
      const div = document.createElement('div');
      div.className = 'line';
      const row = byLine[index];
      if (!row) {
        div.textContent = line;
      } else {
        Array.from(line).forEach(function (ch, col) {
          const span = document.createElement('span');
          span.textContent = ch;
          const m = row[col];
          if (m) {
            span.className = 'mark ' + m.type;
            span.title = m.type + (m.actual ? ': ' + m.actual : '');
          }
          div.appendChild(span);
        });
      }
      projector.appendChild(div);
    });
  }

  // A checked page: one line per problem with its mark (✓ right, ✗ look again, ? not sure yet).
  function showHomework(card) {
    const t = document.createElement('div');
    t.className = 'title';
    t.textContent = card.title || '作业检查';
    projector.appendChild(t);
    const marks = card.marks || [];
    (card.lines || []).forEach(function (line, i) {
      const div = document.createElement('div');
      div.className = 'line hw ' + ((marks[i] && marks[i].verdict) || '');
      div.dataset.testid = 'hw-item';
      div.textContent = line;
      projector.appendChild(div);
    });
    if (card.summary) {
      const s = document.createElement('div');
      s.className = 'subtitle';
      s.textContent = card.summary;
      projector.appendChild(s);
    }
  }

  function setStatus(state, text) {
    status.dataset.state = state;
    status.textContent = text;
  }

  function connect() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    ws = new WebSocket(proto + '//' + location.host + '/ws?token=' + encodeURIComponent(token));
    ws.onopen = function () { setStatus('open', 'connected'); };
    ws.onclose = function () {
      setStatus('closed', 'disconnected — retrying');
      window.setTimeout(connect, 1000);
    };
    ws.onmessage = function (ev) {
      const msg = JSON.parse(ev.data);
      if (msg.type === 'hello') showCard(msg.card);
      else if (msg.type === 'card') showCard(msg.card);
      else if (msg.type === 'response') addLine(msg.envelope.success ? 'lamp' : 'lamp error', msg.envelope.content.text);
      else if (msg.type === 'error') addLine('error', msg.message);
      else if (msg.type === 'voice') {
        if (msg.state) voice.dataset.state = msg.state;
        if (msg.state) voiceState.textContent = msg.state;
        if (msg.partial !== undefined) heard.textContent = msg.partial;
        if (msg.final) addLine('child', msg.partial);
      }
      else if (msg.type === 'state') {
        scene.textContent = msg.scene + ' · ' + msg.phase;
        scene.dataset.scene = msg.scene;
        scene.dataset.phase = msg.phase;
      }
    };
  }

  document.getElementById('say').addEventListener('submit', function (ev) {
    ev.preventDefault();
    const input = document.getElementById('utterance');
    const text = input.value;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      addLine('error', 'not connected to the lamp');
      return;
    }
    addLine('child', text);
    ws.send(JSON.stringify({ v: 1, type: 'utterance', id: String(nextId++), text: text }));
    input.value = '';
  });

  document.getElementById('camera').addEventListener('submit', function (ev) {
    ev.preventDefault();
    const file = document.getElementById('image').files[0];
    if (!file) return;
    addLine('child', '[page under the camera: ' + file.name + ']');
    fetch('/api/camera', { method: 'POST', body: file, headers: { authorization: 'Bearer ' + token } })
      .then(function (res) { return res.json(); })
      .then(function (body) { if (body.error) addLine('error', body.error.message); })
      .catch(function (err) { addLine('error', String(err)); });
  });

  document.getElementById('talk').addEventListener('click', function () {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ v: 1, type: 'button', id: String(nextId++) }));
  });

  connect();
})();
