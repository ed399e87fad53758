// The review desk's one page script: follows an apply in progress. The item page marks
// it with #apply-progress[data-poll] (the admin JSON record of the item); this polls that record
// with the session cookie once a second and reloads the page when `apply.state` is no longer
// "applying" (visible or failed). Without JavaScript the page refreshes itself (noscript meta).
// A batch page marks a running batch action the same way (#batch-action[data-poll]: the action's
// admin JSON record); the progress bar and line follow it, and the page reloads once it has finished.
// An item page marks a running accept, decline or request for information the same way
// (#item-action[data-poll]); its bar and step follow the action, and the page reloads (to show the
// outcome) once it has finished.
'use strict';
// Polls `url` (an admin JSON record, with the session cookie) every `everyMs`, at most
// `maxPolls` times (after a failed poll, twice as long), and hands each answer's data (or null) to
// `seen`, which returns true once there is nothing left to follow.
function follow(url, everyMs, maxPolls, seen) {
  var polls = 0;
  function tick() {
    polls += 1;
    fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .then(function (body) {
        if (seen(body && body.data ? body.data : null)) return;
        if (polls < maxPolls) setTimeout(tick, everyMs);
      })
      .catch(function () {
        if (polls < maxPolls) setTimeout(tick, 2 * everyMs);
      });
  }
  setTimeout(tick, everyMs);
}
(function () {
  var box = document.getElementById('apply-progress');
  if (!box || box.getAttribute('data-state') !== 'applying') return;
  var text = document.getElementById('apply-progress-text');
  var started = Date.now();
  follow(box.getAttribute('data-poll'), 1000, 3600, function (data) {
    var apply = data ? data.apply : null;
    var state = apply ? apply.state : null;
    if (state && state !== 'applying') {
      if (text)
        text.textContent =
          state === 'visible'
            ? 'The change is visible. Loading the result...'
            : 'The apply failed. Loading the details...';
      window.location.reload();
      return true;
    }
    if (text)
      text.textContent =
        'Merging the change and rebuilding the site: ' +
        Math.round((Date.now() - started) / 1000) +
        ' s so far. This page follows it until the change is visible.';
    return false;
  });
})();
(function () {
  var box = document.getElementById('batch-action');
  if (!box || box.getAttribute('data-state') !== 'running') return;
  var bar = document.getElementById('batch-action-bar');
  var text = document.getElementById('batch-action-text');
  follow(box.getAttribute('data-poll'), 2000, 7200, function (a) {
    if (a && a.state !== 'running') {
      if (text) text.textContent = 'The action has ' + a.state + '. Loading the outcome...';
      window.location.reload();
      return true;
    }
    if (a && bar) {
      bar.setAttribute('max', String(a.total));
      bar.setAttribute('value', String(a.done));
    }
    if (a && text)
      text.textContent =
        a.action +
        ' ' +
        a.batchId +
        ': ' +
        a.done +
        ' of ' +
        a.total +
        ' done' +
        (a.failed > 0 ? ' (' + a.failed + ' failed)' : '') +
        ', running';
    return false;
  });
})();
// Listening (api/desk/listening.ts): rows marked [data-listen-row], each with a player and
// Approve / Decline buttons that stay disabled until the row's player has played
// data-listen-seconds of audio (or to its end, if shorter): nobody approves audio they did not
// hear. Keys, anywhere but in a text field: J or ArrowDown next row (and play it), K or ArrowUp
// previous, Space or P play / pause, A approve, D decline. After a verdict the page comes back
// at #after-<row id>, and the row after that one gets the focus.
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll('[data-listen-row]'));
  if (rows.length === 0) return;
  var current = -1;
  function playerOf(row) {
    return row.querySelector('[data-listen-player]');
  }
  rows.forEach(function (row, i) {
    var player = playerOf(row);
    if (!player) return;
    var need = Number(row.getAttribute('data-listen-seconds') || '5');
    var heard = 0;
    var last = null;
    function open() {
      if (row.getAttribute('data-heard') === 'true') return;
      row.setAttribute('data-heard', 'true');
      row.querySelectorAll('[data-listen-approve],[data-listen-decline]').forEach(function (b) {
        b.disabled = false;
      });
      var hint = row.querySelector('[data-listen-hint]');
      if (hint) hint.textContent = 'Heard: you can approve or decline it.';
    }
    player.addEventListener('play', function () {
      last = player.currentTime;
      current = i;
      rows.forEach(function (other) {
        var p = playerOf(other);
        if (other !== row && p && !p.paused) p.pause();
      });
    });
    player.addEventListener('timeupdate', function () {
      if (player.paused || last === null) return;
      var delta = player.currentTime - last;
      // Only time actually played counts (a seek forward does not).
      if (delta > 0 && delta < 1.5) heard += delta;
      last = player.currentTime;
      var enough = isFinite(player.duration) ? Math.min(need, Math.max(0, player.duration - 0.25)) : need;
      if (heard >= enough) open();
    });
    player.addEventListener('seeking', function () {
      last = null;
    });
    player.addEventListener('seeked', function () {
      last = player.currentTime;
    });
    player.addEventListener('ended', function () {
      if (heard > 0) open();
    });
  });
  function focusRow(i, play) {
    if (i < 0 || i >= rows.length) return;
    if (current >= 0 && current !== i) {
      var before = playerOf(rows[current]);
      if (before && !before.paused) before.pause();
    }
    current = i;
    rows[i].focus();
    rows[i].scrollIntoView({ block: 'nearest' });
    var p = playerOf(rows[i]);
    if (play && p) p.play().catch(function () {});
  }
  var m = /^#after-(.+)$/.exec(window.location.hash);
  if (m) {
    var at = rows.findIndex(function (r) {
      return r.id === m[1];
    });
    if (at >= 0) focusRow(Math.min(at + 1, rows.length - 1), false);
  }
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    var tag = t && t.tagName ? t.tagName.toLowerCase() : '';
    if (tag === 'input' || tag === 'textarea' || tag === 'select' || (t && t.isContentEditable)) return;
    var k = e.key;
    var row = current >= 0 ? rows[current] : null;
    if (k === 'j' || k === 'J' || k === 'ArrowDown') {
      e.preventDefault();
      focusRow(current < 0 ? 0 : current + 1, true);
    } else if (k === 'k' || k === 'K' || k === 'ArrowUp') {
      e.preventDefault();
      focusRow(current <= 0 ? 0 : current - 1, true);
    } else if (k === ' ' || k === 'p' || k === 'P') {
      if (tag === 'button' || tag === 'a' || tag === 'audio') return;
      e.preventDefault();
      if (!row) return focusRow(0, true);
      var p = playerOf(row);
      if (p) (p.paused ? p.play() : Promise.resolve(p.pause())).catch(function () {});
    } else if (k === 'a' || k === 'A' || k === 'd' || k === 'D') {
      if (!row) return;
      var b = row.querySelector(k === 'a' || k === 'A' ? '[data-listen-approve]' : '[data-listen-decline]');
      e.preventDefault();
      if (b && !b.disabled) b.click();
    }
  });
})();
(function () {
  var box = document.getElementById('item-action');
  if (!box || box.getAttribute('data-state') !== 'running') return;
  var id = box.getAttribute('data-action-id');
  var bar = document.getElementById('item-action-bar');
  var text = document.getElementById('item-action-text');
  follow(box.getAttribute('data-poll'), 1000, 7200, function (a) {
    if (a && a.state !== 'running') {
      if (text) text.textContent = 'The action has ' + a.state + '. Loading the outcome...';
      var here = window.location.pathname + '?action=' + encodeURIComponent(id);
      window.location.assign(here);
      return true;
    }
    if (a && bar) {
      bar.setAttribute('max', String(Math.max(a.progress.total, 1)));
      bar.setAttribute('value', String(a.progress.done));
    }
    if (a && text)
      text.textContent =
        'Now ' + a.progress.step + ' (' + a.progress.done + ' of ' + a.progress.total + ' steps done).';
    return false;
  });
})();
