// A seat's page: the view is fetched again whenever the server announces a change (server-sent
// events); an action button posts the action with the version of the view it was chosen on.
(function () {
  "use strict";
  var base = window.location.pathname.replace(/\/$/, "");
  var main = document.querySelector("main.seat");
  var view = document.getElementById("view");
  var message = document.getElementById("message");
  var version = parseInt(main.getAttribute("data-version"), 10);
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
      if (data.version < version) { return; }
      version = data.version;
      main.setAttribute("data-version", String(version));
      view.innerHTML = data.html;
    }).catch(function (e) { say("Could not update the table: " + e.message, true); });
  }

  view.addEventListener("click", function (ev) {
    var button = ev.target.closest("button.action");
    if (!button || busy) { return; }
    busy = true;
    say("");
    var buttons = view.querySelectorAll("button.action");
    buttons.forEach(function (b) { b.disabled = true; });
    fetch(base + "/act", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({action: button.getAttribute("data-action"), version: version})
    }).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) { say(data.error || ("refused (" + r.status + ")"), true); }
        return refresh();
      });
    }).catch(function (e) { say("Could not send the action: " + e.message, true); })
      .finally(function () { busy = false; });
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
