// A seat's page: the view is fetched again whenever the server announces a change (server-sent
// events); an action button posts the action with the version of the view it was chosen on.
(function () {
  "use strict";
  var base = window.location.pathname.replace(/\/$/, "");
  var main = document.querySelector("main.seat");
  var view = document.getElementById("view");
  var message = document.getElementById("message");
  var version = parseInt(main.getAttribute("data-version"), 10);
  var shown = version;  // the version of the view drawn
  var busy = false;
  var deleted = false;

  function say(text, isError) {
    message.textContent = text || "";
    message.className = isError ? "error" : "";
  }

  function refresh() {
    return fetch(base + "/view", {cache: "no-store"}).then(function (r) {
      if (!r.ok) { throw new Error("the server answered " + r.status); }
      return r.json();
    }).then(function (data) {
      // Several refreshes may be under way (after an action, on an event, on a reconnection):
      // an answer older than the view shown is dropped, so the page never steps back.
      // The same version again (an event and an action's own refresh both asking) changes
      // nothing: the view is not redrawn, so a selection under way on the table is kept.
      if (data.version < version || (data.version === version && shown === version)) { return; }
      version = data.version;
      shown = version;
      main.setAttribute("data-version", String(version));
      view.innerHTML = data.html;
      chosen = null;
    }).catch(function (e) { say("Could not update the table: " + e.message, true); });
  }

  function send(text) {
    if (busy) { return; }
    busy = true;
    say("");
    var buttons = view.querySelectorAll("button.action");
    buttons.forEach(function (b) { b.disabled = true; });
    fetch(base + "/act", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({action: text, version: version})
    }).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) { say(data.error || ("refused (" + r.status + ")"), true); }
      });
    }).catch(function (e) { say("Could not send the action: " + e.message, true); })
      .finally(function () {
        // busy only while the action is on its way: the view's refresh may wait behind the
        // agents' moves, and a click meanwhile is checked by the server against the version
        busy = false;
        refresh();
      });
  }

  // Click-to-act: a card or place carries data-acts, the indexes of the legal actions naming it.
  // A click narrows the actions to those naming everything clicked so far; one left is taken at
  // once, several mark the things that complete them (and their buttons) until the next click.
  var chosen = null;  // the action indexes still possible, or null

  function acts(el) {
    return (el.getAttribute("data-acts") || "").split(" ").filter(Boolean);
  }

  function mark() {
    view.querySelectorAll("[data-acts]").forEach(function (el) {
      var some = chosen && acts(el).some(function (i) { return chosen.indexOf(i) >= 0; });
      el.classList.toggle("candidate", !!some);
    });
    view.querySelectorAll("button.action").forEach(function (b) {
      b.classList.toggle("dimmed", !!chosen && chosen.indexOf(b.getAttribute("data-index")) < 0);
    });
  }

  function pick(el) {
    var mine = acts(el);
    var both = chosen ? chosen.filter(function (i) { return mine.indexOf(i) >= 0; }) : [];
    chosen = both.length ? both : mine;
    view.querySelectorAll(".selected").forEach(function (x) { if (!both.length) { x.classList.remove("selected"); } });
    el.classList.add("selected");
    if (chosen.length === 1) {
      var button = view.querySelector('button.action[data-index="' + chosen[0] + '"]');
      chosen = null;
      mark();
      if (button) { send(button.getAttribute("data-action")); }
      return;
    }
    mark();
    say("Choose where, or one of the highlighted actions (Escape to start again).");
  }

  function clear() {
    chosen = null;
    view.querySelectorAll(".selected").forEach(function (x) { x.classList.remove("selected"); });
    mark();
  }

  // Take-back (issue 48): ask to take back this seat's last move, or answer another's request.
  function takeBack(answer) {
    if (busy) { return; }
    busy = true;
    say("");
    fetch(base + "/undo", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({answer: answer})
    }).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) { say(data.error || ("refused (" + r.status + ")"), true); }
        else if (!data.done && data.waiting_for && data.waiting_for.length && answer === "ask") {
          say("Waiting for the others to agree to the take-back.");
        }
      });
    }).catch(function (e) { say("Could not send the take-back: " + e.message, true); })
      .finally(function () { busy = false; refresh(); });
  }

  view.addEventListener("click", function (ev) {
    var tb = ev.target.closest("button.takeback-ask, button.takeback-agree, button.takeback-refuse, button.takeback-redo");
    if (tb) {
      takeBack(tb.classList.contains("takeback-ask") ? "ask" : tb.classList.contains("takeback-agree") ? "agree"
               : tb.classList.contains("takeback-redo") ? "redo" : "refuse");
      return;
    }
    var button = ev.target.closest("button.action");
    if (button) {
      if (!busy) { clear(); send(button.getAttribute("data-action")); }
      return;
    }
    var thing = ev.target.closest("[data-acts]");
    if (thing && !busy) { pick(thing); }
  });

  view.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape") { clear(); say(""); return; }
    if (ev.key !== "Enter" && ev.key !== " ") { return; }
    var thing = ev.target.closest("[data-acts]");
    if (thing && !busy) { ev.preventDefault(); pick(thing); }
  });

  // The events stream: the server sends the table's version on every (re)connection and at every
  // change.  A browser retries a dropped stream by itself, but gives it up for good when a retry
  // is answered with an error (a server restarting): then a new stream is opened after a pause,
  // and each (re)opened stream catches up on what was missed while it was down.
  function listen() {
    var source = new EventSource(base + "/events");
    source.onopen = function () { refresh(); };
    source.onmessage = function (ev) {
      var v = parseInt(ev.data, 10);
      if (v !== version) { refresh(); }
    };
    source.addEventListener("deleted", function () {  // the creator deleted the table, or it expired
      source.close();
      deleted = true;
      view.querySelectorAll("button.action").forEach(function (b) { b.disabled = true; });
      say("This table was deleted.", true);
    });
    source.onerror = function () {
      if (deleted) { return; }
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        window.setTimeout(listen, 1000);
      }
    };
  }
  listen();
})();
