import antd from 'antd/locale/de_DE';
import errors from '@loupe/contracts/locales/de/errors.json';
import { makeBundle } from '../bundle';

// Every src/locales/de/<namespace>.json, including namespaces other pages add later. Other languages' files are
// separate chunks: a visit loads only the language it shows.
const files = import.meta.glob<Record<string, unknown>>('../../locales/de/*.json', { eager: true, import: 'default' });

export default makeBundle(files, errors, antd);
