// Plays only the selected segment by default, muted; "Play entire video" lifts the bounds.
// Hosted files use HTML5 video; YouTube videos use the IFrame API (seek to start, stop at end).
(function () {
  "use strict";
  var box = document.getElementById("player");
  if (!box) return;
  var start = parseFloat(box.dataset.start);
  var end = parseFloat(box.dataset.end);
  var segmentOnly = true;
  var sound = document.getElementById("unmute");

  function html5Player(video) {
    return {
      seek: function (t) { video.currentTime = t; },
      play: function () { video.muted = !sound.checked; return video.play(); },
      pause: function () { video.pause(); },
      now: function () { return video.currentTime; },
      setMuted: function (muted) { video.muted = muted; },
    };
  }

  function youtubePlayer(ready) {
    var yt;
    window.onYouTubeIframeAPIReady = function () {
      yt = new YT.Player("player-youtube", {
        videoId: box.dataset.youtubeId,
        playerVars: { start: Math.floor(start), mute: 1, rel: 0, playsinline: 1, controls: 1 },
        events: { onReady: ready },
      });
    };
    var tag = document.createElement("script");
    tag.src = "https://www.youtube.com/iframe_api";
    document.head.appendChild(tag);
    return {
      seek: function (t) { yt.seekTo(t, true); },
      play: function () { if (sound.checked) { yt.unMute(); } else { yt.mute(); } yt.playVideo(); },
      pause: function () { yt.pauseVideo(); },
      now: function () { return yt.getCurrentTime(); },
      setMuted: function (muted) { if (muted) { yt.mute(); } else { yt.unMute(); } },
    };
  }

  var player;
  var video = document.getElementById("player-video");
  if (video) {
    player = html5Player(video);
    video.addEventListener("loadedmetadata", function () { player.seek(start); });
  } else {
    player = youtubePlayer(function () { player.seek(start); });
  }

  // Stop at the segment's end; polled because YouTube has no time-update event.
  setInterval(function () {
    if (segmentOnly && player.now() >= end) {
      player.pause();
      player.seek(end);
    }
  }, 100);

  document.getElementById("play-segment").addEventListener("click", function () {
    segmentOnly = true;
    player.seek(start); // re-seek so that replay starts the segment again
    player.play();
  });
  document.getElementById("play-whole").addEventListener("click", function () {
    segmentOnly = false;
    player.seek(0);
    player.play();
  });
  sound.addEventListener("change", function () { player.setMuted(!sound.checked); });
})();
