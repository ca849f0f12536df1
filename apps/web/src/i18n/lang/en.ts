import antd from 'antd/locale/en_US';
import errors from '@loupe/contracts/locales/en/errors.json';
import { makeBundle } from '../bundle';

// Every src/locales/en/<namespace>.json, including namespaces other pages add later. Other languages' files are
// separate chunks: a visit loads only the language it shows.
const files = import.meta.glob<Record<string, unknown>>('../../locales/en/*.json', { eager: true, import: 'default' });

export default makeBundle(files, errors, antd);
