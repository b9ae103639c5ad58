export default function (component) {
  const { data, setStateValue, setTriggerValue } = component;
  const previous = window.__detoxProcess;
  window.__detoxProcess = data.process;
  // Drawn by another process than the last drawing in this tab: the move is kept in the
  // component's state ("moved"), which every later request of the tab carries until the page
  // has read it. A trigger would be lost: a newer trigger of the component ("redraw") replaces
  // an older one that a cancelled run had not yet read.
  if (previous && previous !== data.process) setStateValue("moved", `${previous}>${data.process}@${Date.now()}`);
  // Behind the proxy of deploy/, the cookie names the process that answered last: when it
  // changes, the tab's WebSocket has gone (or is going) to another process, whose new
  // session has drawn nothing yet. A rerun draws the page there at once, and this component
  // again, which then tells the processes apart; Streamlit
  // alone would wait for the next click. The cookie changes on the reconnect's first HTTP
  // replies, before the WebSocket is up (a message sent then is dropped), so the request is
  // sent again after 1, 2, 4, then every 8 seconds, until the new drawing stops this timer
  // (for at most two minutes: a loaded server may take a while to take the WebSocket back).
  // Backing off matters: a rerun request cancels the run in progress, so requests every
  // second could keep a slow process from ever drawing. An empty cookie is a reply nginx
  // made itself: ignored.
  const read = () => (document.cookie.match(/(?:^|; )detox_process=([^;]*)/) || [])[1] || "";
  let seen = read();
  let due = null;  // seconds to the next request, while requests are being sent
  let wait = 1;
  let spent = 0;
  clearInterval(window.__detoxProcessTimer);
  window.__detoxProcessTimer = setInterval(() => {
    const now = read();
    if (now && now !== seen) {
      if (seen) { due = 0; wait = 1; spent = 0; }
      seen = now;
    }
    if (due === null) return;
    if (due > 0) { due -= 1; return; }
    if (spent >= 120) { due = null; return; }
    setTriggerValue("redraw", Date.now());
    spent += wait;
    due = wait - 1;
    wait = Math.min(8, wait * 2);
  }, 1000);
}
