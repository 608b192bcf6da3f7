// Stands in for https://www.youtube.com/iframe_api in browser tests, which have no network: a
// YT.Player whose clock runs while it plays, and which a test can scrub like a viewer dragging
// the progress bar (window.fakeYouTube.scrub(seconds)).
(function () {
  "use strict";
  var players = [];

  function Player(elementId, options) {
    var frame = document.createElement("div");
    frame.id = elementId;
    frame.className = "fake-youtube";
    document.getElementById(elementId).replaceWith(frame);
    var vars = options.playerVars || {};
    this.frame = frame;
    this.videoId = options.videoId;
    this.time = vars.start || 0;
    this.muted = Boolean(vars.mute);
    this.since = null;
    this.state = 5;
    frame.dataset.videoId = this.videoId;
    players.push(this);
    var self = this;
    var events = options.events || {};
    setTimeout(function () { if (events.onReady) events.onReady({ target: self }); }, 0);
  }
  Player.prototype.getCurrentTime = function () {
    return this.since === null ? this.time : this.time + (performance.now() - this.since) / 1000;
  };
  Player.prototype.seekTo = function (seconds) {
    this.time = seconds;
    if (this.since !== null) this.since = performance.now();
  };
  Player.prototype.playVideo = function () {
    if (this.since === null) this.since = performance.now();
    this.state = 1;
  };
  Player.prototype.pauseVideo = function () {
    this.time = this.getCurrentTime();
    this.since = null;
    this.state = 2;
  };
  Player.prototype.mute = function () { this.muted = true; };
  Player.prototype.unMute = function () { this.muted = false; };
  Player.prototype.isMuted = function () { return this.muted; };
  Player.prototype.getPlayerState = function () { return this.state; };
  Player.prototype.cueVideoById = function (options) {
    this.videoId = options.videoId;
    this.frame.dataset.videoId = options.videoId;
    this.time = options.startSeconds || 0;
    this.since = null;
    this.state = 5;
  };

  window.YT = { Player: Player, PlayerState: { PLAYING: 1, PAUSED: 2, CUED: 5 } };
  window.fakeYouTube = {
    players: players,
    player: function () { return players[players.length - 1]; },
    scrub: function (seconds) { players[players.length - 1].seekTo(seconds); },
  };
  if (window.onYouTubeIframeAPIReady) window.onYouTubeIframeAPIReady();
})();
