// The replay viewer of a finished game (issue 48): steps fetched from the server as JSON
// ({step, total, html, marks}); forward, back, first, last, a step or a turn to jump to, and
// "everything" (every seat's cards: the game is over) or the seat's own view.
(function () {
  "use strict";
  var main = document.querySelector("main.replay-viewer");
  var url = main.getAttribute("data-url");
  var total = parseInt(main.getAttribute("data-total"), 10);
  var view = document.getElementById("view");
  var message = document.getElementById("message");
  var stepBox = main.querySelector(".replay-step");
  var turns = main.querySelector(".replay-turn");
  var all = main.querySelector(".replay-all");
  var step = 0;
  var marked = false;
  var asked = 0;  // the latest request: an older answer arriving after it is dropped

  function show(n) {
    n = Math.max(0, Math.min(total, n));
    var ticket = ++asked;
    fetch(url + "?n=" + n + (all.checked ? "&all=1" : ""), {cache: "no-store"}).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) { throw new Error(data.error || ("the server answered " + r.status)); }
        return data;
      });
    }).then(function (data) {
      if (ticket !== asked) { return; }  // a later step was asked for meanwhile (two quick clicks)
      step = data.step;
      stepBox.value = String(step);
      main.setAttribute("data-step", String(step));
      view.innerHTML = data.html;
      message.textContent = "step " + step + " of " + data.total;
      if (!marked) {
        data.marks.forEach(function (m) {
          var o = document.createElement("option");
          o.value = String(m[0]);
          o.textContent = m[1] + " (step " + m[0] + ")";
          turns.appendChild(o);
        });
        marked = true;
      }
    }).catch(function (e) {
      if (ticket === asked) { message.textContent = "Could not show the step: " + e.message; }
    });
  }

  main.querySelector(".replay-first").addEventListener("click", function () { show(0); });
  main.querySelector(".replay-back").addEventListener("click", function () { show(step - 1); });
  main.querySelector(".replay-forward").addEventListener("click", function () { show(step + 1); });
  main.querySelector(".replay-last").addEventListener("click", function () { show(total); });
  stepBox.addEventListener("change", function () { show(parseInt(stepBox.value, 10) || 0); });
  turns.addEventListener("change", function () { show(parseInt(turns.value, 10) || 0); });
  all.addEventListener("change", function () { show(step); });
  document.addEventListener("keydown", function (ev) {
    if (ev.target === stepBox) { return; }
    if (ev.key === "ArrowRight") { show(step + 1); }
    if (ev.key === "ArrowLeft") { show(step - 1); }
  });
  show(0);
})();
