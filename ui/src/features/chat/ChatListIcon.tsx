// The chat list's icon: speech bubbles stacked as a list. Decorative.
export function ChatListIcon({ size = 18 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d="M4 5h11M4 10h11M4 15h7" />
      <path d="M15 14h5v5l-2-1.5h-3z" />
    </svg>
  );
}
