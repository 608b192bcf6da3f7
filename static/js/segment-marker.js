// The marking tool: pick a segment's start and end by playing the video and pressing
// "Mark start" / "Mark end", or by typing times; preview it looping, muted. One script for the
// worker's YouTube proposal and the admin's cutting of an uploaded file. The server checks every
// rule again (the length rule and the time pattern come from it, in #segment-rules); this script
// only says what is wrong sooner.
(function () {
  "use strict";
  var form = document.getElementById("segment-form");
  var rulesNode = document.getElementById("segment-rules");
  var box = document.getElementById("player");
  if (!form || !rulesNode || !box) return;
  var rules = JSON.parse(rulesNode.textContent);
  var timePattern = new RegExp(rules.timePattern);
  var player = window.SegmentPlayer(box);
  player.onFailure(function () {
    var status = document.getElementById("video-status");
    if (status) status.textContent = "The video could not be loaded: try another link.";
  });
  var start = form.elements.start;
  var end = form.elements.end;
  var link = form.elements.url; // absent when cutting an uploaded file
  var lengthNode = document.getElementById("segment-length");
  var nowNode = document.getElementById("player-now");
  var preview = document.getElementById("preview-segment");
  var sound = document.getElementById("unmute");
  var videoStatus = document.getElementById("video-status");
  var previewing = false;
  var videoLoaded = !link;

  // Seconds from "75", "7.5", "1:15" or "1:02:03"; NaN when it is not a time.
  function parseTime(text) {
    var match = timePattern.exec(text.trim());
    if (!match) return NaN;
    var hours = match[1] ? parseInt(match[1], 10) : 0;
    var minutes = match[2] ? parseInt(match[2], 10) : 0;
    var seconds = parseFloat(match[3].replace(",", "."));
    if ((match[2] && seconds >= 60) || (match[1] && minutes >= 60)) return NaN;
    return Math.round((hours * 3600 + minutes * 60 + seconds) * 100) / 100;
  }

  // Tenths of a second are as precise as a press of a button gets.
  function formatTime(seconds) {
    var tenths = Math.round(seconds * 10);
    var whole = Math.floor(tenths / 10);
    var clock = Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
    if (whole >= 3600) {
      clock = Math.floor(whole / 3600) + ":" + String(Math.floor(whole / 60) % 60).padStart(2, "0") +
        ":" + String(whole % 60).padStart(2, "0");
    }
    return clock + "." + (tenths % 10);
  }

  function seconds(n) {
    return (Math.round(n * 100) / 100) + " second" + (n === 1 ? "" : "s");
  }

  var show = window.showFieldError;

  function problemWithTime(field, missing) {
    if (!field.value.trim()) return missing;
    if (isNaN(parseTime(field.value))) {
      return "Type the time in seconds (75) or in minutes and seconds (1:15).";
    }
    return "";
  }

  function problemWithSpan(from, to) {
    if (isNaN(from) || isNaN(to)) return "";
    var length = Math.round((to - from) * 100) / 100;
    if (length <= 0) return "The end must come after the start.";
    if (length < rules.minSeconds) {
      return "This segment is " + seconds(length) + " long; it must be at least " +
        rules.minSeconds + " seconds.";
    }
    if (length > rules.maxSeconds) {
      return "This segment is " + seconds(length) + " long; it can be at most " +
        rules.maxSeconds + " seconds. Most good segments are " + rules.suggestedMinSeconds + "–" +
        rules.suggestedMaxSeconds + " seconds.";
    }
    return "";
  }

  // Returns whether the span is usable; with `loud`, shows every problem (as on submit).
  function check(loud) {
    var startProblem = problemWithTime(start, "Mark or type where the segment starts.");
    var endProblem = problemWithTime(end, "Mark or type where the segment ends.");
    var from = parseTime(start.value);
    var to = parseTime(end.value);
    var spanProblem = startProblem || endProblem ? "" : problemWithSpan(from, to);
    if (loud || start.value.trim()) show(start, startProblem);
    if (loud || end.value.trim()) show(end, endProblem || spanProblem);
    lengthNode.classList.remove("outside-guidance");
    if (!isNaN(from) && !isNaN(to) && to > from) {
      var length = Math.round((to - from) * 100) / 100;
      var text = "Length: " + seconds(length) + ".";
      if (length < rules.suggestedMinSeconds || length > rules.suggestedMaxSeconds) {
        text += " Most good segments are " + rules.suggestedMinSeconds + "–" +
          rules.suggestedMaxSeconds + " seconds.";
        lengthNode.classList.add("outside-guidance");
      }
      lengthNode.textContent = text;
    } else {
      lengthNode.textContent = "";
    }
    return !startProblem && !endProblem && !spanProblem;
  }

  function stopPreview() {
    if (!previewing) return;
    previewing = false;
    player.pause();
    preview.textContent = "Preview segment";
    preview.setAttribute("aria-pressed", "false");
  }

  function mark(field) {
    field.value = formatTime(player.now());
    check(false);
  }

  document.getElementById("mark-start").addEventListener("click", function () { mark(start); });
  document.getElementById("mark-end").addEventListener("click", function () { mark(end); });
  [start, end].forEach(function (field) {
    field.addEventListener("change", function () { stopPreview(); check(false); });
    field.addEventListener("input", function () {
      if (field.getAttribute("aria-invalid") === "true") check(false);
    });
  });

  preview.setAttribute("aria-pressed", "false");
  preview.addEventListener("click", function () {
    if (previewing) { stopPreview(); return; }
    if (!videoLoaded) {
      if (link) show(link, "Paste the address of a YouTube video.");
      return;
    }
    if (!check(true)) return;
    previewing = true;
    preview.textContent = "Stop preview";
    preview.setAttribute("aria-pressed", "true");
    player.playSegment(parseTime(start.value), parseTime(end.value), {
      loop: true,
      muted: !sound.checked,
    });
  });
  sound.addEventListener("change", function () { player.setMuted(!sound.checked); });

  setInterval(function () { nowNode.textContent = formatTime(player.now()); }, 200);

  // A pasted link is read by the server, so the video shown is the one it will accept.
  var asked = "";
  function loadLink() {
    var value = link.value.trim();
    if (!value || value === asked) return;
    asked = value;
    fetch(rules.videoLinkUrl + "?url=" + encodeURIComponent(value), {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) { return response.json(); })
      .then(function (answer) {
        if (value !== asked) return; // a newer link was pasted meanwhile
        if (answer.error) {
          show(link, answer.error);
          videoStatus.textContent = "";
          return;
        }
        show(link, "");
        stopPreview();
        if (!start.value.trim() && answer.start !== null) start.value = formatTime(answer.start);
        var from = parseTime(start.value);
        player.load(answer.videoId, isNaN(from) ? answer.start || 0 : from);
        videoLoaded = true;
        // Said once the player has the video, not when the link was accepted.
        videoStatus.textContent = "Loading video " + answer.videoId + "…";
        player.onReady(function () {
          if (value === asked) videoStatus.textContent = "Video " + answer.videoId + " loaded.";
        });
        check(false);
      })
      .catch(function () {
        asked = "";
        videoStatus.textContent = "The link could not be checked; try again.";
      });
  }
  if (link) {
    link.addEventListener("change", loadLink);
    link.addEventListener("paste", function () { setTimeout(loadLink, 0); });
    loadLink();
  }
  check(false);

  form.addEventListener("submit", function (event) {
    var linkProblem = link && !link.value.trim() ? "Paste the address of a YouTube video." : "";
    if (link && linkProblem) show(link, linkProblem);
    var spanOk = check(true);
    if (linkProblem || !spanOk) {
      event.preventDefault();
      (linkProblem ? link : start.getAttribute("aria-invalid") === "true" ? start : end).focus();
      return;
    }
    // A second click while the first is in flight must not send the form twice.
    form.querySelector("button[type=submit]").disabled = true;
  });
})();
