// Review pages: each row's "Watch" button plays that row's segment, looping and muted, in the
// page's one watch panel (player.js's SegmentPlayer), so reviewers judge what was described.
(function () {
  "use strict";
  var panel = document.getElementById("watch-panel");
  if (!panel || !window.SegmentPlayer) return;
  var holder = panel.querySelector(".watch-player");
  var title = panel.querySelector(".watch-title");
  var current = null;

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.watch");
    if (!button) return;
    var segment = button.dataset;
    var start = parseFloat(segment.start);
    var end = parseFloat(segment.end);
    if (current) current.pause();
    var box = document.createElement("div");
    box.className = "player";
    if (segment.videoUrl) {
      var video = document.createElement("video");
      video.id = "player-video";
      video.muted = true;
      video.playsInline = true;
      video.preload = "metadata";
      video.src = segment.videoUrl;
      box.appendChild(video);
    } else {
      var frame = document.createElement("div");
      frame.id = "player-youtube";
      box.appendChild(frame);
    }
    holder.replaceChildren(box);
    title.textContent = "Segment " + segment.segment + ": " + start + " s to " + end + " s";
    panel.hidden = false;
    current = window.SegmentPlayer(box);
    if (segment.youtubeId) current.load(segment.youtubeId, start);
    var player = current;
    current.onReady(function () { player.playSegment(start, end, { loop: true, muted: true }); });
  });
})();
