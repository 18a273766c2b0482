// Opens a web page (a sign-in page) outside the window, in a new browser tab. The desktop app has
// no opener plugin yet, so there it is up to the webview; the dialog always shows the link too,
// in case nothing opened.
export function openExternal(url: string): void {
  if (!/^https?:\/\//i.test(url)) return;
  try {
    window.open(url, '_blank', 'noopener,noreferrer');
  } catch {
    // A blocked pop-up: the link in the dialog still works.
  }
}
