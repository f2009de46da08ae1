/**
 * The report's inline script (plain ES2017, no template literals so it can sit
 * in a TypeScript string): reads the JSON data block, and on a click on a
 * request (a bar, an event, the navigator) draws that request's block map.
 * Trace strings reach the page only through textContent, never innerHTML.
 */
export const CLIENT_JS = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var SVGNS = 'http://www.w3.org/2000/svg';
  var map = document.getElementById('blockmap');
  var current = -1;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function int(n) { return Math.round(n).toLocaleString('en-US'); }
  function usd(n) { return '$' + n.toFixed(4); }
  function blocksOf(r) {
    var out = [];
    r.runs.forEach(function (run) { for (var i = 0; i < run[1]; i++) out.push(run[0] + i); });
    return out;
  }
  // Cache point labels as drawn badges, not the circled digits (few fonts have ⓪).
  function badges(labels) {
    var s = el('span', { class: 'badges' });
    labels.forEach(function (l) { s.appendChild(el('span', { class: 'cp' }, String(l))); });
    return s;
  }
  function usageLine(name, u) {
    if (!u) return name + ': did not send it (a recall round only cachepoint inserts)';
    if (u.rejected) return name + ': rejected (' + u.rejected + ')';
    return name + ': read ' + int(u.read) + ', write ' + int(u.write5m + u.write1h) + ', uncached ' + int(u.input) +
      ', ' + usd(u.cost) + (u.bust ? ', BUST (' + int(u.missedTokens) + ' warm tokens unread)' : '');
  }

  function show(i) {
    if (i < 0 || i >= data.requests.length) return;
    current = i;
    var r = data.requests[i];
    var prev = i > 0 ? data.requests[i - 1] : null;
    document.querySelectorAll('.req.selected').forEach(function (g) { g.classList.remove('selected'); });
    document.querySelectorAll('.req[data-i="' + i + '"]').forEach(function (g) { g.classList.add('selected'); });
    document.getElementById('nav-index').value = String(i);
    map.textContent = '';
    map.setAttribute('data-request', String(i));

    var ids = blocksOf(r);
    var labelsAt = {};
    r.points.forEach(function (p) { labelsAt[p.index] = p; });
    var prevLen = prev ? prev.tailStart : 0;

    map.appendChild(el('h3', null, 'Request #' + i + ': turn ' + r.turn + ', round ' + r.round + ', +' + r.t + ' s' +
      (i > 0 ? ' (' + r.gap + ' s after the previous)' : '')));
    var facts = el('ul', { class: 'facts' });
    var pts = el('li', null, int(r.totalTokens) + ' tokens in ' + ids.length + ' blocks; cache points: ' + (r.points.length ? '' : 'none'));
    r.points.forEach(function (p, k) {
      if (k > 0) pts.appendChild(document.createTextNode('; '));
      pts.appendChild(badges(p.labels));
      pts.appendChild(document.createTextNode(' ' + data.blocks[ids[p.index]].path + ' (' + p.ttl + (p.moved ? ', ' + p.moved : '') + ')'));
    });
    facts.appendChild(pts);
    var change;
    if (!prev) change = 'first request: everything is written or sent';
    else if (r.cause || r.firstChange < prevLen) change = 'changed since #' + (i - 1) + ': first changed block ' + (r.firstChangePath || ('#' + r.firstChange)) + (r.cause ? ' (' + r.cause + ')' : '');
    else change = 'only appended since #' + (i - 1);
    facts.appendChild(el('li', { class: 'change' }, change));
    if (r.recall) facts.appendChild(el('li', { class: 'recall' }, 'recall round: an extra request after the agent read back ' + r.recall.join(', ')));
    facts.appendChild(el('li', null, usageLine('cachepoint', r.cp)));
    facts.appendChild(el('li', null, 'plan predicted a read of ' + int(r.predictedRead) + ' tokens; the simulator read ' + int(r.cp.read)));
    facts.appendChild(el('li', null, usageLine(data.peer.id, r.peer)));
    if (r.decisions.length) {
      var byType = {};
      r.decisions.forEach(function (d) {
        var t = byType[d.type] || (byType[d.type] = { n: 0, tokens: 0 });
        t.n++; t.tokens += d.tokensRemoved || 0;
      });
      var li = el('li', { class: 'decision' });
      var det = el('details');
      det.appendChild(el('summary', null, 'decisions: ' + Object.keys(byType).map(function (k) {
        return byType[k].n + ' ' + k + (byType[k].tokens ? ' (\u2212' + int(byType[k].tokens) + ' tokens)' : '');
      }).join(', ')));
      var ul = el('ul');
      r.decisions.forEach(function (d) {
        var price = d.saving !== undefined ? ' (gate: saves ' + usd(d.saving) + ', re-write ' + usd(d.rewrite || 0) + (d.warm ? ', warm' : ', cold') + ')' : '';
        ul.appendChild(el('li', null, d.type + ' ' + d.path + (d.tokensRemoved !== undefined ? ', \u2212' + int(d.tokensRemoved) + ' tokens' : '') + (d.why ? ': ' + d.why : '') + price));
      });
      det.appendChild(ul);
      li.appendChild(det);
      facts.appendChild(li);
    }
    map.appendChild(facts);

    // The strip: one rect per block, width by tokens.
    var total = ids.reduce(function (n, id) { return n + Math.max(data.blocks[id].tokens, 1); }, 0);
    var W = 1000, x = 0, strip = svg('svg', { viewBox: '0 0 ' + W + ' 46', class: 'strip', role: 'img', 'aria-label': 'blocks of request ' + i });
    ids.forEach(function (id, k) {
      var b = data.blocks[id];
      var w = Math.max(b.tokens, 1) / total * W;
      var cls = 'blk seg-' + b.segment + (b.hidden ? ' hidden' : '') + (b.kind === 'summary' ? ' summary' : '') +
        (r.editableStart >= 0 && k >= r.editableStart && k < r.tailStart ? ' editable' : '') + (prev && k >= r.firstChange && k < r.tailStart ? ' new' : '');
      var rect = svg('rect', { x: x.toFixed(2), y: '14', width: Math.max(w, 0.5).toFixed(2), height: '24', class: cls });
      var t = svg('title', {});
      t.textContent = b.path + ' (' + int(b.tokens) + ' tokens)';
      rect.appendChild(t);
      strip.appendChild(rect);
      if (labelsAt[k]) {
        var mx = Math.min(x + w, W - 1);
        strip.appendChild(svg('line', { x1: mx.toFixed(2), y1: '10', x2: mx.toFixed(2), y2: '42', class: 'mark' }));
        labelsAt[k].labels.forEach(function (l, j) {
          var cx = Math.max(7, Math.min(mx - j * 13, W - 7));
          strip.appendChild(svg('circle', { cx: cx.toFixed(2), cy: '7', r: '6', class: 'cp' }));
          var tx = svg('text', { x: cx.toFixed(2), y: '10', class: 'cp' });
          tx.textContent = String(l);
          strip.appendChild(tx);
        });
      }
      x += w;
    });
    map.appendChild(strip);

    var table = el('table', { class: 'blocks' });
    var head = el('tr');
    ['#', 'path', 'kind', 'tokens', 'point', 'state', 'preview'].forEach(function (h) { head.appendChild(el('th', null, h)); });
    table.appendChild(head);
    var group = null;
    ids.forEach(function (id, k) {
      var b = data.blocks[id];
      var g = k >= r.tailStart ? 'tail' : b.segment === 'envelope' ? 'envelope' : (b.path.split('/').slice(0, 2).join(' '));
      if (g !== group) {
        group = g;
        var gr = el('tr', { class: 'group' });
        gr.appendChild(el('td', { colspan: '7' }, g));
        table.appendChild(gr);
      }
      var state = [];
      if (b.hidden) state.push(b.hidden === 'prune' ? 'pruned' : 'hidden (' + b.hidden + ')');
      if (b.kind === 'summary') state.push('summary');
      if (r.editableStart >= 0 && k >= r.editableStart && k < r.tailStart) state.push('editable');
      if (prev && k >= r.firstChange && k < r.tailStart) state.push(k < prevLen ? 'changed' : 'new');
      var p = labelsAt[k];
      var tr = el('tr', { class: 'seg-' + b.segment + (b.hidden ? ' hidden' : '') + (p ? ' marked' : '') });
      tr.appendChild(el('td', { class: 'num' }, String(k)));
      tr.appendChild(el('td', { class: 'path' }, b.path));
      tr.appendChild(el('td', null, b.kind));
      tr.appendChild(el('td', { class: 'num' }, int(b.tokens)));
      var pt = el('td', { class: 'pt' });
      if (p) { pt.appendChild(badges(p.labels)); pt.appendChild(document.createTextNode(' ' + p.ttl)); }
      tr.appendChild(pt);
      tr.appendChild(el('td', null, state.join(', ')));
      tr.appendChild(el('td', { class: 'preview' }, b.preview));
      table.appendChild(tr);
    });
    map.appendChild(table);
    if (location.hash !== '#r' + i && history.replaceState) history.replaceState(null, '', '#r' + i);
  }

  document.addEventListener('click', function (ev) {
    var t = ev.target;
    while (t && t !== document && !(t.getAttribute && t.getAttribute('data-i') !== null)) t = t.parentNode;
    if (t && t !== document) { ev.preventDefault(); show(Number(t.getAttribute('data-i'))); }
  });
  document.getElementById('nav-prev').addEventListener('click', function () { show(current - 1); });
  document.getElementById('nav-next').addEventListener('click', function () { show(current + 1); });
  document.getElementById('nav-index').addEventListener('change', function (ev) { show(Number(ev.target.value)); });
  document.addEventListener('keydown', function (ev) {
    if (ev.target && ev.target.tagName === 'INPUT') return;
    if (ev.key === 'ArrowLeft') show(current - 1);
    if (ev.key === 'ArrowRight') show(current + 1);
  });
  var m = /^#r(\d+)$/.exec(location.hash);
  show(m ? Number(m[1]) : 0);
  document.documentElement.setAttribute('data-ready', 'true');
})();
`;
