export default function (component) {
  const { data, setTriggerValue } = component;
  const state = window.__detoxBeat || (window.__detoxBeat = {});
  if (state.token === data.token) return;  // a rerun of the same session: the timer goes on
  state.token = data.token;
  clearInterval(state.timer);
  let lostAt = 0;
  const beat = () => fetch(data.url, { method: "POST", body: state.token, credentials: "same-origin",
                                       cache: "no-store", keepalive: true })
    .then((r) => {
      // 404: the server no longer counts this tab (it slept, or the server restarted): a
      // rerun admits it again and draws a new token (at most once a minute).
      if (r.status === 404 && Date.now() - lostAt > 60000) { lostAt = Date.now(); setTriggerValue("lost", lostAt); }
    })
    .catch(() => {});
  beat();
  state.timer = setInterval(beat, data.every * 1000);
  if (!state.listening) {
    state.listening = true;
    document.addEventListener("visibilitychange", () => { if (!document.hidden) beat(); });
  }
}
