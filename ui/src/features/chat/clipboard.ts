// Copying text for the Copy buttons: the clipboard API where the window has it, else the older
// select-and-copy way (some desktop web views only allow that one).
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // Refused (no permission, page not focused): try the older way below.
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  try {
    if (!document.execCommand?.('copy')) throw new Error('Copying is not allowed here.');
  } finally {
    area.remove();
  }
}
