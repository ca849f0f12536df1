import antd from 'antd/locale/ru_RU';
import errors from '@loupe/contracts/locales/ru/errors.json';
import { makeBundle } from '../bundle';

// Every src/locales/ru/<namespace>.json, including namespaces other pages add later. Other languages' files are
// separate chunks: a visit loads only the language it shows.
const files = import.meta.glob<Record<string, unknown>>('../../locales/ru/*.json', { eager: true, import: 'default' });

export default makeBundle(files, errors, antd);
