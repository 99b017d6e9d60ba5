/**
 * Writes the two demo PDFs into demo/corpus/ with pdf-lib: real prose, 3 pages each, headings in
 * bold, fixed metadata dates so the output is byte-for-byte reproducible.
 *
 * Run: node --import tsx scripts/make-demo-pdf.ts
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';

type Block = { h: string } | { p: string };

interface DemoPdf {
  path: string;
  title: string;
  author: string;
  subject: string;
  /** One array of blocks per page. */
  pages: Block[][];
}

const FIXED_DATE = new Date('2024-06-01T09:00:00Z');
const PAGE = { width: 595, height: 842, margin: 64 };
const BODY_SIZE = 11;
const HEAD_SIZE = 14;
const LEADING = 1.45;

const PDFS: DemoPdf[] = [
  {
    path: 'climate/warming-causes-briefing.pdf',
    title: 'What Is Warming the Planet? A Briefing on the Causes',
    author: 'Reading group notes',
    subject: 'Causes of global warming ranked by radiative forcing',
    pages: [
      [
        { h: 'What Is Warming the Planet? A Briefing on the Causes' },
        {
          p: 'Global surface temperature in the decade 2014-2023 was about 1.2 degrees Celsius above the 1850-1900 average. This briefing lists the distinct human causes of that warming, how much each contributes, and which ones offset each other. Numbers are rounded from the IPCC Sixth Assessment Report (2021) and the Global Carbon Project.',
        },
        { h: '1. Fossil fuel carbon dioxide' },
        {
          p: "Burning coal, oil and gas is the largest single cause. Fossil CO2 emissions reached about 37 billion tonnes in 2023. Because CO2 persists for centuries, warming from it accumulates: the total warming is roughly proportional to the total CO2 ever emitted. About 45 percent of each year's emissions stays in the air; oceans and land plants absorb the rest.",
        },
        {
          p: 'Coal power is the most carbon-intensive source of electricity, at roughly 1,000 grams of CO2 per kilowatt-hour, against about 450 g for gas and under 50 g for wind, solar, hydro and nuclear power over their life cycles.',
        },
      ],
      [
        { h: '2. Deforestation and land-use change' },
        {
          p: 'Clearing forests, mainly in the tropics, releases carbon stored in trees and soils: about 4 billion tonnes of CO2 a year, or around 10 percent of human CO2 emissions. Cattle pasture, soy and palm oil plantations are the main drivers. Deforestation also removes a carbon sink that would otherwise keep absorbing CO2 every year.',
        },
        { h: '3. Methane from agriculture, fossil fuels and waste' },
        {
          p: 'Methane is responsible for about 0.5 degrees of the warming so far, roughly 30 percent. Livestock digestion and manure, rice paddies, leaking oil and gas infrastructure, coal mines and landfills are the sources. Because methane lasts only about 12 years, cutting it slows warming within a decade, which makes it the quickest lever available.',
        },
        { h: '4. Nitrous oxide and fluorinated gases' },
        {
          p: 'Nitrous oxide from synthetic fertiliser and manure adds about 0.1 degrees. Fluorinated gases used in refrigeration and air conditioning are thousands of times more potent than CO2 per tonne; the Kigali Amendment of 2016 phases down HFCs.',
        },
      ],
      [
        { h: '5. Causes that are not greenhouse gases' },
        {
          p: 'Black carbon (soot) from diesel engines, cooking fires and wildfires absorbs sunlight in the air and darkens snow and ice where it lands, lowering their albedo. Aviation contrails trap outgoing heat. Land-use changes alter surface reflectivity: in snowy boreal regions, clearing dark forest actually cools locally because open snow reflects more light.',
        },
        { h: '6. The cooling offsets' },
        {
          p: 'Sulphate aerosols from burning sulphur-rich fuels reflect sunlight and brighten clouds. They have masked about 0.4 degrees of warming. Cleaning up air pollution, such as the 2020 rules on sulphur in shipping fuel, saves lives but removes part of this mask, so some extra warming appears.',
        },
        { h: '7. Natural factors are small' },
        {
          p: "Changes in the Sun's output and volcanic eruptions together contributed close to zero net warming since 1850. Solar activity has been flat or slightly falling since the 1980s while temperatures rose, and the upper atmosphere is cooling, which is the fingerprint of greenhouse warming rather than a brighter Sun.",
        },
      ],
    ],
  },
  {
    path: 'finance/retirement-accounts-primer.pdf',
    title: 'A Primer on Retirement Accounts',
    author: 'Household finance binder',
    subject: 'Pensions, tax-advantaged accounts and how much to save',
    pages: [
      [
        { h: 'A Primer on Retirement Accounts' },
        {
          p: 'Retirement accounts are ordinary investments wrapped in a tax advantage. The wrapper matters: over 30 years, avoiding tax on growth can add a third or more to the final balance. This primer covers the main account types, how much to save, and the order in which to fill them.',
        },
        { h: 'How much to save' },
        {
          p: 'A common target is to save 15 percent of gross income for retirement, counting any employer contribution, starting in your twenties. Starting at 35 raises the required rate to about 20 to 25 percent. A rough goal for the size of the pot is 25 times the yearly spending you expect in retirement, beyond any state pension; this is the mirror image of the 4 percent rule.',
        },
        { h: 'The 4 percent rule' },
        {
          p: 'The 4 percent rule says that withdrawing 4 percent of a balanced portfolio in the first year of retirement, then adjusting the amount for inflation each year, historically lasted at least 30 years in US data. It is a planning guide, not a guarantee; retirees with longer horizons often use 3.5 percent.',
        },
      ],
      [
        { h: 'Workplace pensions and employer matching' },
        {
          p: 'Many employers match contributions, for example 50 cents per dollar up to 6 percent of salary. The match is free money and an immediate 50 to 100 percent return, so contribute at least enough to receive all of it before any other investing, even before paying off moderate-interest debt.',
        },
        { h: 'Pre-tax versus after-tax accounts' },
        {
          p: 'Traditional (pre-tax) accounts give a tax deduction now and tax withdrawals later. Roth-style (after-tax) accounts give no deduction now but tax-free withdrawals later. If you expect a higher tax rate in retirement than today, after-tax accounts win; if lower, pre-tax accounts win. Holding some of each gives flexibility to manage taxes later.',
        },
        { h: 'Vesting' },
        {
          p: 'Employer contributions may vest over several years, meaning you only keep them if you stay long enough. Check the vesting schedule before changing jobs; leaving a month early can cost a year of matching.',
        },
      ],
      [
        { h: 'What to invest in' },
        {
          p: 'Inside the account, low-cost index funds are hard to beat. A target-date fund holds a mix of stock and bond index funds and shifts gradually toward bonds as the target year approaches. Check the expense ratio: under 0.2 percent a year is good.',
        },
        { h: 'Order of filling accounts' },
        {
          p: 'First, contribute enough to get the full employer match. Second, pay off debt above about 7 percent interest. Third, fill individual tax-advantaged accounts up to their yearly limits. Fourth, return to the workplace plan up to its limit. Only then use an ordinary taxable brokerage account.',
        },
        { h: 'Common mistakes' },
        {
          p: 'Cashing out a pension when changing jobs triggers taxes and often a 10 percent early-withdrawal penalty; roll it over into the new plan or an individual account instead. Leaving contributions in cash for years is another costly mistake. Finally, review beneficiaries after marriage, divorce or the birth of a child.',
        },
      ],
    ],
  },
];

/** Greedy word wrap to `maxWidth` points. */
function wrap(text: string, font: PDFFont, size: number, maxWidth: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (font.widthOfTextAtSize(candidate, size) <= maxWidth || line === '') line = candidate;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

async function render(spec: DemoPdf): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const body = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  doc.setTitle(spec.title);
  doc.setAuthor(spec.author);
  doc.setSubject(spec.subject);
  doc.setProducer('quiver demo (pdf-lib)');
  doc.setCreator('scripts/make-demo-pdf.ts');
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  const maxWidth = PAGE.width - 2 * PAGE.margin;
  spec.pages.forEach((blocks, index) => {
    const page = doc.addPage([PAGE.width, PAGE.height]);
    let y = PAGE.height - PAGE.margin;
    for (const block of blocks) {
      const isHead = 'h' in block;
      const font = isHead ? bold : body;
      const size = isHead ? HEAD_SIZE : BODY_SIZE;
      if (isHead) y -= size * 0.6;
      for (const line of wrap(isHead ? block.h : block.p, font, size, maxWidth)) {
        if (y < PAGE.margin) throw new Error(`${spec.path}: page ${index + 1} overflows`);
        page.drawText(line, { x: PAGE.margin, y, size, font });
        y -= size * LEADING;
      }
      y -= size * 0.9; // paragraph gap
    }
    page.drawText(`Page ${index + 1} of ${spec.pages.length}`, {
      x: PAGE.margin,
      y: 32,
      size: 8,
      font: body,
    });
  });
  return doc.save();
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'demo', 'corpus');
for (const spec of PDFS) {
  const out = join(root, spec.path);
  await mkdir(dirname(out), { recursive: true });
  const bytes = await render(spec);
  await writeFile(out, bytes);
  console.log(`wrote ${out} (${bytes.length} bytes, ${spec.pages.length} pages)`);
}
