// The tabs' styles, in their lazy chunk: rendered as a <style> in the shadow root with the tab's content.
export const CONTENT_CSS = `
.content{flex:1;overflow-y:auto;padding:12px 16px;display:flex;flex-direction:column;gap:10px}
.content input[type=search]{width:100%;padding:8px 12px;border:1px solid var(--svc-border);border-radius:8px;background:var(--svc-bg)}
.items{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.item{display:block;width:100%;text-align:start;padding:10px 12px;border:1px solid var(--svc-border);border-radius:10px;background:var(--svc-bg);cursor:pointer}
.item strong{display:block}
.item span,.content time,.content .empty{color:var(--svc-muted);font-size:14px}
.back,.more{align-self:start;border:1px solid var(--svc-border);background:var(--svc-bg);border-radius:16px;padding:4px 12px;cursor:pointer}
.content h3{margin:0;font-size:18px}
.body{overflow-wrap:anywhere}
.body img{max-width:100%;height:auto}
.body pre{overflow-x:auto;background:var(--svc-surface);padding:8px;border-radius:6px}
.body a{color:inherit}
.post{border-bottom:1px solid var(--svc-border);padding-bottom:10px}
.terms{display:flex;gap:6px;flex-wrap:wrap;margin:6px 0 0;padding:0;list-style:none}
.terms li{background:var(--svc-surface);border-radius:10px;padding:0 8px;font-size:13px}
`;
