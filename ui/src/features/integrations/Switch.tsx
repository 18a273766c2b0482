// A checkbox drawn as a switch, with its label and a line of help; it stays a real checkbox for
// keyboards and screen readers (role="switch", Space toggles it).
export function Switch({
  id,
  label,
  help,
  checked,
  disabled,
  onChange,
}: {
  id: string;
  label: string;
  help?: string;
  checked: boolean;
  disabled?: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <div className="int-switch-row">
      <input
        id={id}
        type="checkbox"
        role="switch"
        className="int-switch"
        checked={checked}
        disabled={disabled}
        aria-describedby={help ? `${id}-help` : undefined}
        onChange={(e) => onChange(e.target.checked)}
      />
      <label htmlFor={id} className="int-switch-text">
        <span className="field-label">{label}</span>
        {help ? (
          <span className="field-help" id={`${id}-help`}>
            {help}
          </span>
        ) : null}
      </label>
    </div>
  );
}
