export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (parentElement.__tsStop) parentElement.__tsStop();  // drawn again: the earlier listener goes
  const KEY = "detox_annotator";
  const dropAll = () => {
    // The token goes, and so do the answers of the pages that were open (the annotation
    // page's copy, "detox-ap:..."), which the next person at this tab must not find.
    sessionStorage.removeItem(KEY);
    for (let i = sessionStorage.length - 1; i >= 0; i--) {
      const k = sessionStorage.key(i);
      if (k && k.startsWith("detox-ap:")) sessionStorage.removeItem(k);
    }
  };
  let channel = null;
  try { channel = new BroadcastChannel("detox-annotator"); } catch (err) { /* none: each tab joins */ }
  let asked = false;
  try {
    if (data.forget) {
      dropAll();
      if (channel && data.left) channel.postMessage({ left: data.left });  // every tab of this annotator
    }
    if (data.keep) sessionStorage.setItem(KEY, data.keep);
    if (data.restore) {
      const token = sessionStorage.getItem(KEY);
      if (token) setTriggerValue("token", token);
      else if (channel) { asked = true; channel.postMessage({ ask: true }); }  // a tab of this browser signed in?
    }
  } catch (err) {
    // Storage refused (a private window's policy): the annotator joins again after a reload.
  }
  let answered = false;
  const onMessage = (ev) => {
    const m = ev.data || {};
    try {
      if (m.ask && data.keep && data.who) {
        const held = sessionStorage.getItem(KEY);
        if (held) channel.postMessage({ token: held, who: data.who });
      } else if (typeof m.left === "string" && data.keep && m.left === data.who) {
        dropAll();  // left in another tab: this one too, at once
        setTriggerValue("left", m.left);
      } else if (typeof m.token === "string" && asked && !answered && !sessionStorage.getItem(KEY)) {
        answered = true;
        setTriggerValue("token", m.token);
      }
    } catch (err) { /* storage refused: as above */ }
  };
  if (channel) channel.addEventListener("message", onMessage);
  const stop = () => { if (channel) channel.close(); channel = null; };
  parentElement.__tsStop = stop;
  return stop;
}
