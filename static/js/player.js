// Plays a segment of a video, muted unless asked: a hosted file through HTML5 video, a YouTube
// video through the IFrame API. SegmentPlayer(box) gives both the same methods; the segment
// marker (segment-marker.js) drives one itself, and pages whose #player names a fixed segment
// (the description task, the review of a proposal) get their buttons wired below.
(function () {
  "use strict";

  function html5Media(video) {
    return {
      ready: function () { return video.readyState >= 1; },
      load: function () {},
      seek: function (t) { video.currentTime = t; },
      play: function (muted) { video.muted = muted; return video.play(); },
      pause: function () { video.pause(); },
      now: function () { return video.currentTime; },
      playing: function () { return !video.paused; },
      setMuted: function (muted) { video.muted = muted; },
      onReady: function (callback) {
        if (video.readyState >= 1) { callback(); } else { video.addEventListener("loadedmetadata", callback, { once: true }); }
      },
      onError: function (callback) {
        video.addEventListener("error", callback);
        if (video.error) callback();
      },
    };
  }

  // The IFrame API script is loaded once, when a first video is asked for. Offline, or with
  // YouTube blocked, the script fails at once: every player waiting for it (and any asked for
  // later) is told then, not after LOAD_PATIENCE_MS of a black box.
  var apiCallbacks = null;
  var apiFailures = [];
  var apiFailed = false;
  function withYouTubeApi(callback, failure) {
    if (window.YT && window.YT.Player) { callback(); return; }
    if (apiFailed) { failure(); return; }
    apiFailures.push(failure);
    if (apiCallbacks) { apiCallbacks.push(callback); return; }
    apiCallbacks = [callback];
    window.onYouTubeIframeAPIReady = function () {
      apiCallbacks.forEach(function (fn) { fn(); });
      apiCallbacks = [];
      apiFailures = [];
    };
    var tag = document.createElement("script");
    tag.src = "https://www.youtube.com/iframe_api";
    tag.addEventListener("error", function () {
      apiFailed = true;
      apiFailures.splice(0).forEach(function (fn) { fn(); });
    });
    document.head.appendChild(tag);
  }

  function youtubeMedia(elementId) {
    var yt = null;
    var isReady = false;
    var waiting = [];
    var failed = [];
    function whenReady(fn) { if (isReady) { fn(); } else { waiting.push(fn); } }
    function fail() { failed.forEach(function (fn) { fn(); }); }
    return {
      ready: function () { return isReady; },
      load: function (videoId, at) {
        if (yt) {
          isReady = false;
          yt.cueVideoById({ videoId: videoId, startSeconds: at || 0 });
          isReady = true;
          return;
        }
        withYouTubeApi(function () {
          yt = new window.YT.Player(elementId, {
            videoId: videoId,
            playerVars: { start: Math.floor(at || 0), mute: 1, rel: 0, playsinline: 1, controls: 1 },
            events: {
              onReady: function () {
                isReady = true;
                waiting.splice(0).forEach(function (fn) { fn(); });
              },
              // Removed, private, not embeddable, or an unknown id.
              onError: fail,
            },
          });
        }, fail);
      },
      seek: function (t) { if (isReady) yt.seekTo(t, true); },
      play: function (muted) {
        whenReady(function () { if (muted) { yt.mute(); } else { yt.unMute(); } yt.playVideo(); });
      },
      pause: function () { if (isReady) yt.pauseVideo(); },
      now: function () { return isReady ? yt.getCurrentTime() : 0; },
      playing: function () { return isReady && yt.getPlayerState() === 1; },
      setMuted: function (muted) { if (!isReady) return; if (muted) { yt.mute(); } else { yt.unMute(); } },
      onReady: whenReady,
      onError: function (callback) { failed.push(callback); },
    };
  }

  // A video that neither loads nor fails (a blocked YouTube, a stalled file) counts as failed
  // after this long, so the worker is told instead of facing a black box.
  var LOAD_PATIENCE_MS = 20000;

  // mode "segment": stop at the end; "loop": go back to the start at the end; "free": no bounds.
  window.SegmentPlayer = function (box) {
    var video = box.querySelector("video");
    var media = video ? html5Media(video) : youtubeMedia("player-youtube");
    var start = 0;
    var end = Infinity;
    var mode = "free";
    var muted = true;

    // Polled because YouTube has no time-update event.
    setInterval(function () {
      if (mode === "free" || !media.ready()) return;
      if (media.now() >= end) {
        if (mode === "loop") {
          media.seek(start);
          if (!media.playing()) media.play(muted); // a file stops by itself at its very end
        } else {
          media.pause();
          media.seek(end);
        }
      }
    }, 100);

    // Failure: the media's own error, or no video after LOAD_PATIENCE_MS from asking for one
    // (at once for a file, whose address is in the page; at load() for YouTube).
    var failureCallbacks = [];
    var failed = false;
    function fail() {
      if (failed) return;
      failed = true;
      failureCallbacks.forEach(function (fn) { fn(); });
    }
    function waitForVideo() {
      failed = false;
      setTimeout(function () { if (!media.ready()) fail(); }, LOAD_PATIENCE_MS);
    }
    media.onError(fail);
    if (video) waitForVideo();

    return {
      load: function (videoId, at) { waitForVideo(); media.load(videoId, at); },
      onReady: media.onReady,
      onFailure: function (callback) {
        failureCallbacks.push(callback);
        if (failed) callback();
      },
      now: media.now,
      playing: media.playing,
      seek: media.seek,
      pause: function () { mode = "free"; media.pause(); },
      setMuted: function (value) { muted = value; media.setMuted(value); },
      playSegment: function (from, to, options) {
        start = from;
        end = to;
        muted = options.muted;
        mode = options.loop ? "loop" : "segment";
        media.seek(from); // re-seek so that replay starts the segment again
        media.play(muted);
      },
      playWhole: function (options) {
        mode = "free";
        muted = options.muted;
        media.seek(0);
        media.play(muted);
      },
      cueSegment: function (from, to) {
        start = from;
        end = to;
        mode = "segment";
        media.onReady(function () { media.seek(from); });
      },
    };
  };

  // Pages showing one fixed segment: "Play segment", "Play entire video", "Sound on", "Loop".
  var box = document.getElementById("player");
  var playSegment = document.getElementById("play-segment");
  if (!box || !playSegment || !box.dataset.start) return;
  var start = parseFloat(box.dataset.start);
  var end = parseFloat(box.dataset.end);
  var sound = document.getElementById("unmute");
  var loop = document.getElementById("loop");
  var player = window.SegmentPlayer(box);
  var problem = document.getElementById("player-problem");
  player.onFailure(function () {
    problem.hidden = false;
    playSegment.disabled = true;
    document.getElementById("play-whole").disabled = true;
  });
  if (box.dataset.youtubeId) player.load(box.dataset.youtubeId, start);
  player.cueSegment(start, end);

  playSegment.addEventListener("click", function () {
    player.playSegment(start, end, { loop: Boolean(loop && loop.checked), muted: !sound.checked });
  });
  document.getElementById("play-whole").addEventListener("click", function () {
    player.playWhole({ muted: !sound.checked });
  });
  sound.addEventListener("change", function () { player.setMuted(!sound.checked); });
})();
