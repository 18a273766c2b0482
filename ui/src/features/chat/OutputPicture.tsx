// A picture a tool saved (a chart from charts_create, a screenshot), shown in the chat. The
// bytes come through the API (the token never goes into an <img> address).
import { useEffect, useState } from 'react';
import { useApi } from '../../api/context';

const PICTURE = /^outputs\/.+\.(png|jpe?g|webp|gif)$/i;

/** The saved picture a tool result names in `file`, if any. */
export function pictureOf(result: unknown): { file: string; title: string } | null {
  if (!result || typeof result !== 'object') return null;
  const { file, title } = result as { file?: unknown; title?: unknown };
  if (typeof file !== 'string' || !PICTURE.test(file)) return null;
  return { file, title: typeof title === 'string' && title.trim() ? title : file.split('/').pop() ?? file };
}

export function OutputPicture({ file, title }: { file: string; title: string }) {
  const api = useApi();
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let made: string | null = null;
    let live = true;
    api
      .fileContent(file)
      .then((blob) => {
        if (!live) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [api, file]);
  if (failed) return <p className="tool-picture-missing">The picture {file} couldn't be opened.</p>;
  if (!url) return <p className="tool-picture-loading">Loading the picture…</p>;
  return (
    <figure className="tool-picture">
      <img src={url} alt={title} data-testid="tool-picture" />
      <figcaption>{title}</figcaption>
    </figure>
  );
}
