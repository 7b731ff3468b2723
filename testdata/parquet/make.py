"""Writes the Parquet fixtures of this directory (see README.md): `python3 make.py`.

The content is fixed, so running it again gives the same rows, schemas and row groups (the
bytes may differ in the writer's `created_by` string with another pyarrow version).
"""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent

MILL = (
    "The old mill on the river Wend was built in 1820 by a family of weavers from the valley. "
    "Its wheel still turns every morning, and the flour it grinds goes to the bakery across "
    "the square. Visitors can climb to the loft, where the original oak beams carry the "
    "names of the carpenters who raised them."
)
# The mill text with two words changed and one clause reworded: a near duplicate.
MILL_EDITED = (
    "The old mill on the river Wend was built in 1821 by a family of weavers from the valley. "
    "Its wheel still turns every morning, and the flour it grinds goes to the bakery across "
    "the square. Visitors may climb to the loft, where the original oak beams carry the "
    "names of the carpenters who raised them."
)
LIGHTHOUSE = (
    "A lighthouse has stood on the northern cape since the harbour was dredged in 1874. "
    "The present tower is the third on the site; the first burned down and the second was "
    "undermined by the sea. Its lamp is now automatic, and the keeper's cottage has become "
    "a small museum of shipwrecks and rescues."
)
# The lighthouse text with its last sentence cut short: a near duplicate.
LIGHTHOUSE_CUT = (
    "A lighthouse has stood on the northern cape since the harbour was dredged in 1874. "
    "The present tower is the third on the site; the first burned down and the second was "
    "undermined by the sea. Its lamp is now automatic, and the keeper's cottage has become "
    "a small museum."
)
RAILWAY = (
    "The narrow-gauge railway climbs eleven kilometres from the station to the quarry at the "
    "top of the pass. It was opened to carry slate, and passengers were allowed on board only "
    "after the quarry closed. Volunteers restored two steam engines and now run trains on "
    "summer weekends."
)
ORCHARD = (
    "Behind the school lies an orchard of forty apple trees, most of them local varieties "
    "that no nursery sells any more. Pupils prune the trees in winter and press the fruit in "
    "October. The juice is sold at the autumn fair to pay for new saplings grafted from the "
    "oldest trees."
)
CHOIR = (
    "The village choir was founded by a schoolteacher who wanted her pupils' parents to sing "
    "together. It meets on Thursday evenings in the chapel and has never turned anyone away. "
    "Each December it performs carols in the market hall, and the collection goes to the "
    "mountain rescue team."
)
MARKET = (
    "On Saturdays the market square fills with stalls selling cheese, honey, wool and "
    "second-hand books. The market charter dates from the fourteenth century and is kept in "
    "the town hall. Traders still pay their rent to the parish, one silver coin a year for "
    "each stall."
)
BRIDGE = (
    "The stone bridge below the weir has five arches, and the middle one is wider than the "
    "rest so that barges could pass. Floods in 1953 swept away the parapet, which was rebuilt "
    "with stones recovered from the riverbed. A plaque on the eastern end names the masons."
)
ARCHIVE = (
    "The parish archive holds registers of baptisms, marriages and burials going back to "
    "1583. Researchers may consult them in the reading room on weekday mornings by "
    "appointment. Photographs of the oldest volumes are available online, so the originals "
    "are handled as little as possible."
)
FERRY = (
    "Before the bridge was built, a ferry crossed the river at the foot of Mill Lane. The "
    "ferryman lived in the house that is now the tea room, and a bell on the far bank was "
    "rung to call him. The ferry stopped running in 1902, but the bell still hangs on its "
    "post."
)
# The ferry text with one word changed: a near duplicate.
FERRY_EDITED = (
    "Before the bridge was built, a ferry crossed the river at the foot of Mill Lane. The "
    "ferryman lived in the cottage that is now the tea room, and a bell on the far bank was "
    "rung to call him. The ferry stopped running in 1902, but the bell still hangs on its "
    "post."
)


def docs():
    """`docs.parquet`: string ids, titles, a null text in row 8, zstd, row groups of 4 rows."""
    rows = [
        ("mill-a", "Mill", MILL),
        ("lighthouse", "Lighthouse", LIGHTHOUSE),
        ("railway", "Railway", RAILWAY),
        ("orchard", "Orchard", ORCHARD),
        ("mill-b", "Mill (copy)", MILL_EDITED),
        ("choir", "Choir", CHOIR),
        ("market", None, MARKET),
        ("empty", "No text", None),
        ("bridge", "Bridge", BRIDGE),
        ("lighthouse-2", "Lighthouse", LIGHTHOUSE_CUT),
        ("archive", "Archive", ARCHIVE),
    ]
    schema = pa.schema(
        [("id", pa.string()), ("title", pa.string()), ("text", pa.string())],
        metadata={"source": "testdata/parquet/make.py"},
    )
    table = pa.table(
        {
            "id": [r[0] for r in rows],
            "title": [r[1] for r in rows],
            "text": [r[2] for r in rows],
        },
        schema=schema,
    )
    pq.write_table(table, HERE / "docs.parquet", row_group_size=4, compression="zstd")


def numbers():
    """`numbers.parquet`: int64 ids in `doc_id`, text in `content`, no title, snappy."""
    rows = [
        (101, MILL),
        (102, RAILWAY),
        (103, FERRY),
        (104, ORCHARD),
        (105, MILL_EDITED),
        (106, CHOIR),
        (107, FERRY_EDITED),
        (108, MARKET),
        (109, BRIDGE),
        (110, ARCHIVE),
    ]
    table = pa.table(
        {
            "doc_id": pa.array([r[0] for r in rows], pa.int64()),
            "content": pa.array([r[1] for r in rows], pa.string()),
        }
    )
    pq.write_table(table, HERE / "numbers.parquet", row_group_size=5, compression="snappy")


if __name__ == "__main__":
    docs()
    numbers()
