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

  function say(text, isError) {
    message.textContent = text || "";
    message.className = isError ? "error" : "";
  }

  function refresh() {
    return fetch(base + "/view", {cache: "no-store"}).then(function (r) {
      if (!r.ok) { throw new Error("the server answered " + r.status); }
      return r.json();
    }).then(function (data) {
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

  var source = new EventSource(base + "/events");
  source.onmessage = function (ev) {
    var v = parseInt(ev.data, 10);
    if (v !== version) { refresh(); }
  };
})();
