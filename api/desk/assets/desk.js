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
(function () {
  var box = document.getElementById('apply-progress');
  if (!box || box.getAttribute('data-state') !== 'applying') return;
  var url = box.getAttribute('data-poll');
  var text = document.getElementById('apply-progress-text');
  var started = Date.now();
  var polls = 0;
  function tick() {
    polls += 1;
    fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .then(function (body) {
        var apply = body && body.data ? body.data.apply : null;
        var state = apply ? apply.state : null;
        if (state && state !== 'applying') {
          if (text)
            text.textContent =
              state === 'visible'
                ? 'The change is visible. Loading the result...'
                : 'The apply failed. Loading the details...';
          window.location.reload();
          return;
        }
        if (text)
          text.textContent =
            'Merging the change and rebuilding the site: ' +
            Math.round((Date.now() - started) / 1000) +
            ' s so far. This page follows it until the change is visible.';
        if (polls < 3600) setTimeout(tick, 1000);
      })
      .catch(function () {
        if (polls < 3600) setTimeout(tick, 2000);
      });
  }
  setTimeout(tick, 1000);
})();
(function () {
  var box = document.getElementById('batch-action');
  if (!box || box.getAttribute('data-state') !== 'running') return;
  var url = box.getAttribute('data-poll');
  var bar = document.getElementById('batch-action-bar');
  var text = document.getElementById('batch-action-text');
  var polls = 0;
  function tick() {
    polls += 1;
    fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .then(function (body) {
        var a = body && body.data ? body.data : null;
        if (a && a.state !== 'running') {
          if (text) text.textContent = 'The action has ' + a.state + '. Loading the outcome...';
          window.location.reload();
          return;
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
        if (polls < 7200) setTimeout(tick, 2000);
      })
      .catch(function () {
        if (polls < 7200) setTimeout(tick, 4000);
      });
  }
  setTimeout(tick, 2000);
})();
(function () {
  var box = document.getElementById('item-action');
  if (!box || box.getAttribute('data-state') !== 'running') return;
  var url = box.getAttribute('data-poll');
  var id = box.getAttribute('data-action-id');
  var bar = document.getElementById('item-action-bar');
  var text = document.getElementById('item-action-text');
  var polls = 0;
  function tick() {
    polls += 1;
    fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .then(function (body) {
        var a = body && body.data ? body.data : null;
        if (a && a.state !== 'running') {
          if (text) text.textContent = 'The action has ' + a.state + '. Loading the outcome...';
          var here = window.location.pathname + '?action=' + encodeURIComponent(id);
          window.location.assign(here);
          return;
        }
        if (a && bar) {
          bar.setAttribute('max', String(Math.max(a.progress.total, 1)));
          bar.setAttribute('value', String(a.progress.done));
        }
        if (a && text)
          text.textContent =
            'Now ' + a.progress.step + ' (' + a.progress.done + ' of ' + a.progress.total + ' steps done).';
        if (polls < 7200) setTimeout(tick, 1000);
      })
      .catch(function () {
        if (polls < 7200) setTimeout(tick, 2000);
      });
  }
  setTimeout(tick, 1000);
})();
