import { loadCatalog } from '../src/domain/catalog.ts';
const { catalog, messages } = loadCatalog(process.argv[2] ?? 'content');
console.log(messages);
const w = catalog.works.find((w) => w.content.slug === (process.argv[3] ?? 'schubert-ave-maria-d-839'))!;
console.log(
  JSON.stringify(
    {
      composer: w.content.composer,
      firstPublished: w.content.firstPublished,
      publication: w.content.publication,
      rightsNote: w.content.rightsNote,
      rights: w.content.rights,
    },
    null,
    1,
  ),
);
