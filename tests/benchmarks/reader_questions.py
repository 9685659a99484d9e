#!/usr/bin/env python3
"""Questions readers type about someone or something in a book, of the
kinds the engine answers by kind (who someone is and what they are, looks,
callings, homes, meanings of names and of words, names in full, kin, who
said a line, counts, first and last lines, first meetings, what becomes of
someone, how someone dies, whom someone killed, whom someone marries, how
someone changes, what someone is like, what kind of animal, who tells the
book, where someone is from, what a place the book names is, what a letter
says, how two people are related, what happens in a chapter, what the book
is about and how it ends), some as typed in a hurry ("whats stapletons job"), each with what
its answer must quote (where it has several patterns joined by "&&", each);
and why someone did something, which no kind answers yet (the questions'
own words: written before any was tried, none tuned on).

    CHAPTERHOUSE_HOME=DIR python tests/benchmarks/reader_questions.py [--misses] [--kind WORDS]

For each question, the evidence (12 passages, no generator) and its digest
are made, and the question is answered when the stated answer or a quoted
line holds what is expected (spaces and case aside). Prints the share
answered per kind and in all, with how long its evidence took to find
(mean and slowest; each book made ready first, as the app does when it
opens one), and with --misses what was quoted for each one missed. The
probes were written while building those kinds; the "held out" ones were
not looked at while tuning them. Books are imported
into the library at $CHAPTERHOUSE_HOME and indexed to stage 1 where they
are not already (the eval harness's library can be reused). Nothing here is
a pass/fail test.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from corpus_books import corpus_books  # noqa: E402  (beside this script)

# (book, kind, question, a pattern the answer must hold)
PROBES = [
    ("the-hound-of-the-baskervilles", "looks", "How is Dr Mortimer described?", r"very tall, thin man"),
    ("the-hound-of-the-baskervilles", "looks", "What does Stapleton look like?", r"gray eyes|clean-shaven"),
    ("the-hound-of-the-baskervilles", "looks", "What does Barrymore look like?", r"square black beard"),
    ("the-hound-of-the-baskervilles", "looks", "What does Sir Henry look like?", r"small, alert, dark-eyed"),
    ("a-christmas-carol", "looks", "What does Scrooge look like?", r"froze his old features"),
    ("a-christmas-carol", "looks", "Describe the Ghost of Christmas Past", r"strange figure"),
    ("persuasion", "looks", "Describe Anne Elliot's appearance", r"very pretty girl"),
    ("a-study-in-scarlet", "looks", "What does Sherlock Holmes look like?", r"six feet"),
    ("the-sign-of-the-four", "looks", "What does Miss Morstan look like?", r"blonde young lady"),
    ("little-women", "looks", "What does Jo look like?", r"very tall, thin, and brown|decided mouth"),
    ("little-women", "looks", "Describe Meg", r"Margaret, the eldest"),
    ("little-women", "looks", "What does Amy look like?", r"blue eyes"),
    ("the-invisible-man", "looks (held out)", "What does Griffin look like?", r"albino"),
    ("the-call-of-the-wild", "looks (held out)", "What does Buck look like?", r"hundred and forty pounds|St\. Bernard"),
    ("the-hound-of-the-baskervilles", "callings", "What is Stapleton's job?", r"Stapleton, the naturalist"),
    ("the-hound-of-the-baskervilles", "callings", "What does Barrymore do?", r"acting as butler"),
    ("the-hound-of-the-baskervilles", "callings", "What is Dr Mortimer's profession?", r"House-surgeon"),
    ("a-study-in-scarlet", "callings", "How does Jefferson Hope earn his living?", r"cabby there called Jefferson"),
    ("persuasion", "callings", "What is Mr Shepherd's profession?", r"civil, cautious lawyer"),
    ("a-christmas-carol", "callings", "What is Bob Cratchit's job?", r"\bclerk\b"),
    ("a-christmas-carol", "homes", "Where does Scrooge live?", r"lived in chambers"),
    ("the-call-of-the-wild", "homes", "Where does Buck live?", r"Buck lived at a big house"),
    ("the-hound-of-the-baskervilles", "homes", "Where does Stapleton live?", r"Merripit|residence of the naturalist"),
    ("the-adventures-of-sherlock-holmes", "homes", "Where does Holmes live?", r"Baker Street"),
    ("little-women", "homes", "Where does Laurie live?", r"next door|big house"),
    ("tarzan-of-the-apes", "meanings", "What does the name Tarzan mean?", r"White-Skin"),
    ("tarzan-of-the-apes", "meanings", "What is the translation of Tarzan in ape language?", r"White-Skin"),
    ("tarzan-of-the-apes", "meanings", "What does Tublat mean?", r"broken nose"),
    # A word's meaning: the sense the book uses leads (written while building it: gig, moor, hare, humbug,
    # countenance, tor; held out: the rest).
    ("black-beauty", "words", "What is a gig?", r"1\. \(noun\) A light carriage"),
    ("the-hound-of-the-baskervilles", "words", "What does moor mean?", r"1\. \(noun\) An extensive waste"),
    ("the-hound-of-the-baskervilles", "words", "what's a tor", r"1\. \(noun\) High-pointed hill"),
    ("a-christmas-carol", "words", "What does humbug mean?", r"1\. \(noun\) (?:A spirit of deception|An imposition)"),
    ("persuasion", "words", "Define countenance", r"1\. \(noun\) (?:The face|Appearance or expression)"),
    ("a-study-in-scarlet", "words (held out)", "What is a cab?", r"1\. \(noun\) A kind of close carriage"),
    ("persuasion", "words (held out)", "What is a curricle?", r"1\. \(noun\) A two-wheeled chaise"),
    ("the-sign-of-the-four", "words (held out)", "What does lodge mean?", r"1\. \(noun\) A shelter|small house"),
    ("the-call-of-the-wild", "words (held out)", "What does mush mean?", r"travel|dog|march"),
    ("a-christmas-carol", "names in full", "What is Scrooge's first name?", r"first name is Ebenezer"),
    ("a-christmas-carol", "names in full", "What is Marley's first name?", r"first name is Jacob"),
    ("the-adventures-of-sherlock-holmes", "names in full", "What was Holmes first name?", r"first name is Sherlock"),
    ("the-hound-of-the-baskervilles", "names in full", "What is Dr Mortimer's first name?", r"first name is James"),
    ("the-hound-of-the-baskervilles", "names in full", "What is Sir Henry's surname?", r"surname is Baskerville"),
    ("persuasion", "names in full", "What is Captain Wentworth's first name?", r"first name is Frederick"),
    ("tarzan-of-the-apes", "names in full", "What is Jane's surname?", r"surname is Porter"),
    ("tarzan-of-the-apes", "names in full", "What is Clayton's first name?", r"first name is John"),
    ("a-study-in-scarlet", "names in full", "What is Watson's full name?", r"John H\. Watson"),
    ("the-prisoner-of-zenda", "names in full", "What is Rudolf's surname?", r"surname is Rassendyll"),
    ("the-railway-children", "names in full", "What is Bobbie's real name?", r"short form of .Roberta"),
    ("little-women", "names in full", "What is Jo's real name?", r"short form of .Josephine"),
    ("a-christmas-carol", "who is", "Who is Marley?", r"MARLEY was dead"),
    ("a-christmas-carol", "who is", "Who is the Ghost of Christmas Past?", r"I am the Ghost of Christmas Past"),
    ("tarzan-of-the-apes", "who is", "Who is Kerchak?", r"huge king ape"),
    ("tarzan-of-the-apes", "who is", "Who is Tarzan of the Apes?", r"little Tarzan"),
    ("the-prisoner-of-zenda", "who is", "Who is Rupert of Hentzau?", r"young Rupert"),
    ("the-prisoner-of-zenda", "who is", "Who is Sapt?", r"Colonel Sapt"),
    ("the-hound-of-the-baskervilles", "who is", "Who is Selden?", r"Notting Hill murderer"),
    ("the-call-of-the-wild", "what becomes of them", "What becomes of John Thornton?", r"John Thornton was dead"),
    ("persuasion", "what becomes of them", "What happens to Mrs Clay in the end?", r"under his protection"),
    ("a-christmas-carol", "what becomes of them", "What happens to Scrooge in the end?", r"better than his word"),
    ("the-hound-of-the-baskervilles", "what becomes of them", "What is Selden's fate?", r"death of Selden"),
    ("the-call-of-the-wild", "what becomes of them", "What happens to Spitz?", r"dark circle|Spitz disappeared"),
    # Several at once (retrieval.fate_of_several), written while building it.
    ("the-call-of-the-wild", "what becomes of them", "What happens to Hal, Charles and Mercedes?",
     r"section of ice give way"),
    # Written before a death told became a fate's answer (retrieval.fate_asked), none looked at while building it.
    ("the-prisoner-of-zenda", "what becomes of them (held out)", "What happens to Black Michael?",
     r"Michael lay dead|death of the Duke|Duke.{0,30}dead"),
    ("the-sign-of-the-four", "what becomes of them (held out)", "What happens to Bartholomew Sholto?",
     r"dead|murdered|death"),
    ("the-sign-of-the-four", "what becomes of them (held out)", "What happens to Tonga?",
     r"dead|shot|killed|bottom of the Thames"),
    ("a-study-in-scarlet", "what becomes of them (held out)", "What happens to Lucy Ferrier?",
     r"died|dead|death|grave"),
    ("a-study-in-scarlet", "what becomes of them (held out)", "What happens to John Ferrier?",
     r"dead|killed|grave|murdered"),
    ("tarzan-of-the-apes", "what becomes of them (held out)", "What happens to Kulonga?", r"dead|killed|noose"),
    ("the-call-of-the-wild", "what becomes of them (held out)", "What happens to Dave?", r"revolver-shot|shot"),
    ("the-hound-of-the-baskervilles", "what becomes of them (held out)", "What happens to Sir Charles?",
     r"dead|death|died"),
    ("the-invisible-man", "what becomes of them (held out)", "What happens to Marvel?", r"inn|Jolly Cricketers|books"),
    ("the-railway-children", "what becomes of them (held out)", "What happens to Father?",
     r"Daddy|Father.{0,30}(?:home|back)"),
    ("the-memoirs-of-sherlock-holmes", "kin", "Who is Holmes's brother?", r"brother Mycroft"),
    ("a-christmas-carol", "kin", "Who is Tiny Tim's father?", r"Bob, the father"),
    ("a-christmas-carol", "kin", "Who was Scrooge's partner?", r"partner, Jacob Marley|Jacob, his old partner"),
    ("persuasion", "kin", "Who is Anne's father?", r"Sir Walter"),
    ("little-women", "kin", "What is the name of Laurie's tutor?", r"Brooke, my tutor"),
    ("a-christmas-carol", "who said it", 'Who said "Are there no prisons?"', r'"Are there no prisons\?" asked Scrooge'),
    ("a-christmas-carol", "who said it", "Who says 'God bless us, every one'?", r"said Tiny Tim"),
    ("the-adventures-of-sherlock-holmes", "who said it", "Who says 'You see, but you do not observe'?",
     r"he answered"),
    ("a-christmas-carol", "counts", "How many times does Scrooge say humbug?", r"Scrooge says \W+humbug\W+ 6 times"),
    ("persuasion", "counts", "In which chapters does Lady Russell appear?", r"in 20 of its 24 chapters"),
    ("tarzan-of-the-apes", "counts", "When is the story set?", r"1888"),
    ("a-christmas-carol", "first and last lines", "What is the last sentence of the book?",
     r"^And so, as Tiny Tim observed, God bless Us, Every One!$"),
    ("a-christmas-carol", "first and last lines", "What is the first line of stave 3?", r"^AWAKING in the middle"),
    ("the-adventures-of-sherlock-holmes", "who tells it", "What style of narrative is used in the story?",
     r"\bI\b"),
    ("the-call-of-the-wild", "how someone dies", "How did Thornton die?", r"John Thornton was dead"),
    ("a-study-in-scarlet", "how someone dies", "How was Drebber killed?", r"came to his end|Drebber.s death"),
    ("the-hound-of-the-baskervilles", "how someone dies", "How did Selden die?", r"death of Selden"),
    ("the-call-of-the-wild", "how someone dies", "Does Spitz die?", r"Spitz disappeared|dark circle"),
    ("a-christmas-carol", "how someone dies", "Does Tiny Tim die?", r"did NOT die"),
    ("persuasion", "how someone dies", "How did Fanny Harville die?", r"did not live to know it|died the preceding"),
    ("tarzan-of-the-apes", "how someone dies", "How does Kerchak die?", r"Kerchak was dead"),
    ("tarzan-of-the-apes", "how someone dies", "How does Kala die?",
     r"Kala plunged forward|body of Kala|Kala.s murderer|murderer of Kala"),
    ("a-study-in-scarlet", "how someone dies", "How does Jefferson Hope die?",
     r"aneurism burst|before a tribunal|death of the man Hope"),
    ("a-study-in-scarlet", "how someone dies", "Who killed Stangerson?", r"murderer of Enoch Drebber and of Joseph"),
    ("the-prisoner-of-zenda", "how someone dies", "How does Black Michael die?",
     r"Michael lay dead|dealt Michael his death|killing of Michael"),
    ("the-hound-of-the-baskervilles", "how someone dies", "How did Sir Charles die?",
     r"frighten old Sir Charles to death|Sir Charles was dead before"),
    ("the-invisible-man", "how someone dies", "How does Griffin die?", r"ended in infinite disaster"),
    ("black-beauty", "how someone dies", "Does Ginger die?", r"believe it was Ginger|dead horse"),
    ("little-women", "how someone dies", "How does Beth die?", r"drew her last|tide went out|Beth was well at last"),
    # Whom someone killed (deaths.told_killing), written while building it; the last is LiteraryQA's.
    ("tarzan-of-the-apes", "whom someone killed", "Who did Tarzan kill?", r"killed him|KILLER OF BEASTS"),
    ("a-study-in-scarlet", "whom someone killed", "Who did Jefferson Hope kill?", r"murderer of Enoch Drebber"),
    ("tarzan-of-the-apes", "whom someone killed", "Who was killed by the king ape Kerchak?", r"Clayton was dead"),
    ("little-women", "first meetings", "When does Jo meet Laurie?", r"Don.t you like to dance, Miss Jo"),
    ("a-study-in-scarlet", "first meetings", "How does Watson meet Holmes?", r"said Stamford, introducing us"),
    ("the-sign-of-the-four", "first meetings", "When does Watson first meet Miss Morstan?",
     r"Miss Morstan entered the room"),
    # The next two found while trying readers' questions by hand (who tells their own name; a name with "of").
    ("the-hound-of-the-baskervilles", "first meetings", "When does Watson first meet Stapleton?", r"I am Stapleton"),
    ("a-christmas-carol", "first meetings", "When does Scrooge first meet the Ghost of Christmas Present?",
     r"I am the Ghost of Christmas Present"),
    # As typed in a hurry: lower case, no apostrophes, a name alone.
    ("a-christmas-carol", "typed in a hurry", "whats bob cratchits job", r"\bclerk\b"),
    ("a-christmas-carol", "typed in a hurry", "who is the ghost of christmas past", r"I am the Ghost of Christmas Past"),
    ("a-christmas-carol", "typed in a hurry", "Who is Scrooges nephew?", r"Scrooge's nephew"),
    ("a-christmas-carol", "typed in a hurry", "what is scrooges first name", r"first name is Ebenezer"),
    ("tarzan-of-the-apes", "typed in a hurry", "tell me about kerchak", r"huge king ape"),
    ("the-prisoner-of-zenda", "typed in a hurry", "sapt", r"Colonel Sapt"),
    ("the-hound-of-the-baskervilles", "typed in a hurry", "what does stapleton look like", r"gray eyes|clean-shaven"),
    ("the-hound-of-the-baskervilles", "typed in a hurry", "whats stapletons job", r"Stapleton, the naturalist"),
    ("the-call-of-the-wild", "typed in a hurry", "where does buck live", r"Buck lived at a big house"),
    ("persuasion", "typed in a hurry", "who is annes father", r"Sir Walter"),
    # What someone is, as the book says it ("Dr. Kemp was a tall and slender young man"), not only where it first
    # names them (described.py): written before that was built (16 of 30 answered then, 20 now).
    ("persuasion", "what someone is", "Who is Mrs Clay?", r"daughter of Mr Shepherd|dangerous companion"),
    ("a-christmas-carol", "what someone is", "Who is Tiny Tim?", r"crutch|iron frame"),
    ("a-christmas-carol", "what someone is", "Who is Fezziwig?", r"apprentice|Fezziwig alive"),
    ("a-christmas-carol", "what someone is", "Who is Bob Cratchit?", r"clerk"),
    ("persuasion", "what someone is", "Who is Mrs Smith?", r"Miss Hamilton|school"),
    ("persuasion", "what someone is", "Who is Lady Russell?", r"godmother|widow|intimate friend"),
    ("persuasion", "what someone is", "Who is Captain Benwick?", r"first lieutenant|Fanny Harville|engaged"),
    ("persuasion", "what someone is", "Who is Mr Shepherd?", r"lawyer|agent"),
    ("the-hound-of-the-baskervilles", "what someone is", "Who is Stapleton?", r"naturalist"),
    ("the-hound-of-the-baskervilles", "what someone is", "Who is Barrymore?", r"butler"),
    ("the-hound-of-the-baskervilles", "what someone is", "Who is Dr Mortimer?", r"surgeon|medical|Grimpen"),
    ("the-hound-of-the-baskervilles", "what someone is", "Who is Frankland?", r"Lafter|law"),
    ("black-beauty", "what someone is", "Who is Merrylegs?", r"pony|gr[ae]y"),
    ("black-beauty", "what someone is", "Who is Ginger?", r"chestnut|bit"),
    ("black-beauty", "what someone is", "Who is John Manly?", r"coachman"),
    ("the-call-of-the-wild", "what someone is", "Who is John Thornton?", r"frozen feet"),
    ("the-call-of-the-wild", "what someone is", "Who is Hal?", r"youngster of nineteen"),
    ("the-call-of-the-wild", "what someone is", "Who is Spitz?", r"Spitzbergen|snow-white|whaler"),
    ("the-invisible-man", "what someone is", "Who is Kemp?", r"tall and slender"),
    ("the-invisible-man", "what someone is", "Who is Marvel?", r"tramp|shabby|Thomas Marvel"),
    ("the-prisoner-of-zenda", "what someone is", "Who is Black Michael?", r"Duke of Strelsau|half-brother|brother"),
    ("tarzan-of-the-apes", "what someone is", "Who is Kala?", r"she-ape|young mother|mother"),
    ("tarzan-of-the-apes", "what someone is", "Who is D'Arnot?", r"French|officer|lieutenant"),
    ("little-women", "what someone is", "Who is Laurie?", r"Laurence|grandson|neighbo"),
    ("little-women", "what someone is", "Who is Mr Brooke?", r"tutor"),
    ("little-women", "what someone is", "Who is Aunt March?", r"old lady|lame|companion"),
    ("the-sign-of-the-four", "what someone is", "Who is Jonathan Small?", r"wooden leg|convict"),
    ("the-sign-of-the-four", "what someone is", "Who is Thaddeus Sholto?", r"small man|twin|son of"),
    ("a-study-in-scarlet", "what someone is", "Who is Lestrade?", r"Scotland Yard|detective"),
    ("a-study-in-scarlet", "what someone is", "Who is Stamford?", r"dresser|Bart"),
    # What a place or thing the book names is, asked as who someone is: the first six written after seeing what
    # they had quoted (a scene's lines), the held-out ones before.
    ("the-prisoner-of-zenda", "what a place is", "What is Zenda?", r"small town"),
    ("the-prisoner-of-zenda", "what a place is", "What is Strelsau?", r"partly old and partly new|capital"),
    ("persuasion", "what a place is", "What is Uppercross?", r"moderate-sized village"),
    ("black-beauty", "what a place is", "What is Earlshall?", r"where the Earl of"),
    ("the-sign-of-the-four", "what a place is", "What is the Aurora?", r"steam launch"),
    ("the-sign-of-the-four", "what a place is", "What is Pondicherry Lodge?", r"Upper Norwood|own grounds"),
    ("the-hound-of-the-baskervilles", "what a place is (held out)", "What is Lafter Hall?",
     r"Frankland|four miles to the south"),
    ("little-women", "what a place is (held out)", "What is Plumfield?", r"left Plumfield to Jo|school"),
    ("the-invisible-man", "what a place is (held out)", "What is Iping?", r"village|guest to stop at Iping"),
    # What someone's letter says (letters.py): written while building it (all but one had quoted chance lines), the
    # held-out one before.
    ("persuasion", "letters", "What does Wentworth's letter say?", r"listen no longer in silence"),
    ("persuasion", "letters", "What did Captain Wentworth write to Anne?", r"listen no longer in silence"),
    ("the-hound-of-the-baskervilles", "letters", "What did Laura Lyons write to Sir Charles?", r"burn this letter"),
    ("tarzan-of-the-apes", "letters", "What does Jane Porter's letter say?", r"MY DEAR MISS PORTER"),
    ("the-sign-of-the-four", "letters (held out)", "What does the letter to Miss Morstan say?", r"third pillar"),
    ("a-christmas-carol", "relationships", "What is the relationship between Scrooge and Marley?", r"partner"),
    ("a-christmas-carol", "relationships", "How is Fred related to Scrooge?", r"nephew"),
    ("the-hound-of-the-baskervilles", "relationships", "What is the relationship between Stapleton and Beryl?",
     r"his wife|husband and wife"),
    ("the-sign-of-the-four", "relationships", "How is Thaddeus Sholto related to Bartholomew?", r"twin|brother"),
    ("a-study-in-scarlet", "relationships", "What is the relationship between John Ferrier and Lucy?",
     r"adopted|daughter"),
    ("tarzan-of-the-apes", "relationships", "What is the relationship between Tarzan and Kala?", r"foster|mother"),
    ("the-call-of-the-wild", "relationships (held out)", "What is the relationship between Buck and John Thornton?",
     r"love|master"),
    ("little-women", "relationships (held out)", "What is the relationship between Meg and John Brooke?",
     r"married|engaged|husband|wife|lover"),
    ("persuasion", "relationships (held out)", "What is the relationship between Anne and Mary?", r"sister"),
    ("the-invisible-man", "relationships (held out)", "What is the relationship between Kemp and Griffin?",
     r"University College|student"),
    ("black-beauty", "relationships (held out)", "What is the relationship between Black Beauty and Duchess?",
     r"mother"),
    ("the-railway-children", "relationships (held out)", "How are Bobbie and Peter related?", r"sister|brother"),
    ("persuasion", "why", "Why did Anne break off her engagement to Wentworth?",
     r"persuaded to believe the engagement"),
    ("the-call-of-the-wild", "why", "Why did Manuel sell Buck?", r"Chinese lottery|besetting sin"),
    ("a-christmas-carol", "why", "Why does Marley's ghost come to Scrooge?", r"chance and hope|warn you"),
    ("little-women", "why", "Why did Jo sell her hair?", r"make money|for Father|selling my hair"),
    ("black-beauty", "why", "Why did Black Beauty fall and break his knees?", r"drunk|drink"),
    ("the-railway-children", "why", "Why did Father go away?", r"State secrets|spy"),
    ("the-memoirs-of-sherlock-holmes", "why", "Why did Straker take Silver Blaze out onto the moor?", r"tendon|lame"),
    ("the-hound-of-the-baskervilles", "why (held out)", "Why did Stapleton want Sir Henry dead?",
     r"indeed a Baskerville|succession"),
    ("a-study-in-scarlet", "why (held out)", "Why did Jefferson Hope kill Drebber?", r"Lucy"),
    ("the-prisoner-of-zenda", "why (held out)", "Why does Rassendyll pretend to be the King?", r"drugged|crowned"),
    ("the-sign-of-the-four", "why (held out)", "Why was Miss Morstan sent a pearl every year?", r"detached pearl"),
    ("the-invisible-man", "why (held out)", "Why did Kemp betray the Invisible Man?", r"Reign of Terror"),
    ("tarzan-of-the-apes", "why (held out)", "Why didn't Tarzan tell Jane who he really was?",
     r"mother was an Ape|father I know nothing"),
    # Whom someone marries (marriages.py): written before it was built (5 of 9 answered by chance lines then, 7 now).
    ("persuasion", "whom someone marries", "Who does Louisa marry?", r"Benwick"),
    ("persuasion", "whom someone marries", "Who does Anne marry?", r"Wentworth"),
    ("persuasion", "whom someone marries", "Who does Henrietta marry?", r"Hayter"),
    ("little-women", "whom someone marries", "Who does Meg marry?", r"John|Brooke"),
    ("little-women", "whom someone marries", "Who does Jo marry?", r"Bhaer|Professor|Fritz"),
    ("little-women", "whom someone marries", "Who does Amy marry?", r"Laurie|Laurence"),
    ("emma", "whom someone marries", "Who does Emma marry?", r"Knightley"),
    ("emma", "whom someone marries", "Who does Harriet marry?", r"Robert Martin"),
    ("the-sign-of-the-four", "whom someone marries", "Who does Miss Morstan marry?", r"husband|Watson|me\b"),
    # What someone is like (their character): written before it was built; the answer must quote the book's own
    # words of their character.
    ("a-christmas-carol", "what someone is like", "What kind of person is Scrooge?",
     r"tight-fisted|covetous|solitary as an oyster"),
    ("a-christmas-carol", "what someone is like", "What is Scrooge like?",
     r"tight-fisted|covetous|solitary as an oyster"),
    ("persuasion", "what someone is like", "What is Sir Walter like?", r"Vanity was the beginning"),
    ("persuasion", "what someone is like", "Describe Lady Russell's character", r"sound than of quick abilities"),
    ("persuasion", "what someone is like", "What kind of man is Mr Elliot?", r"without heart or conscience"),
    ("little-women", "what someone is like", "What is Jo like?", r"quick temper, sharp tongue"),
    ("little-women", "what someone is like", "What kind of person is Beth?", r"shy manner|timid voice"),
    ("little-women", "what someone is like (held out)", "What is Amy's personality?",
     r"snow maiden|mindful of her manners"),
    ("emma", "what someone is like (held out)", "What is Emma like?", r"handsome, clever, and rich"),
    ("black-beauty", "what someone is like (held out)", "What kind of horse is Ginger?", r"bad habit of biting"),
    # How someone changes: written before it was built; the answer must quote how the book last tells them changed.
    ("a-christmas-carol", "how someone changes", "How does Scrooge change?", r"as good a friend|alteration in him"),
    ("a-christmas-carol", "how someone changes", "How do the spirits change Scrooge?",
     r"as good a friend|alteration in him"),
    ("the-call-of-the-wild", "how someone changes", "How does Buck change over the story?",
     r"no longer bound him|Buck became alive|change in the breed"),
    ("black-beauty", "how someone changes", "How does Ginger change?", r"how changed|glossy neck was now straight"),
    ("little-women", "how someone changes", "How does Amy change?", r"growing sweeter|prim carriage was changed"),
    ("little-women", "how someone changes", "How does Laurie change?", r"growing more serious"),
    ("little-women", "how someone changes (held out)", "How does Meg change?", r"much improved her sister Meg"),
    ("a-christmas-carol", "how someone changes (held out)", "How is Scrooge different at the end of the book?",
     r"as good a friend|alteration in him"),
    ("persuasion", "how someone changes (held out)", "How has Captain Wentworth changed?", r"no longer nobody"),
    # What kind of animal someone is (breeds.py): the first two written while building it, from LiteraryQA's
    # "What kind of dog is Buck?".
    ("the-call-of-the-wild", "breeds", "What breed is Buck?", r"St\. Bernard|shepherd dog"),
    ("the-call-of-the-wild", "breeds", "What kind of dog is Buck?", r"St\. Bernard|shepherd dog"),
    ("black-beauty", "breeds", "What kind of horse is Ginger?", r"carriage horse breed|racing blood"),
    # Where someone comes from (homes.ORIGIN), written while building it.
    ("the-call-of-the-wild", "where someone is from", "Where is Buck from?", r"Santa Clara Valley|Here he was born"),
    ("emma", "where someone is from", "Where is Mr. Weston from?", r"native of Highbury"),
    ("tarzan-of-the-apes", "where someone is from", "Where was Tarzan born?", r"I was born there"),
    ("a-study-in-scarlet", "where someone is from", "Where was Lucy Ferrier born?", r"grew up within the log-house"),
    # Who tells the book, by name (narrator.teller), written while building it; the title as the book asked of.
    ("the-hound-of-the-baskervilles", "who tells it", "Who narrates The Hound of the Baskervilles?", r"by Watson"),
    ("black-beauty", "who tells it", "Who is the narrator?", r"by Black Beauty"),
    ("the-adventures-of-sherlock-holmes", "who tells it", "Which character narrates the stories?", r"by Watson"),
    ("persuasion", "who tells it", "What is the point of view?", r"third person"),
    # What happens in a chapter (the panel's starter question; chapter_lines.py): each of two patterns, joined by
    # "&&", must be held by a quoted line (two of the chapter's events). All written before building it; the "held
    # out" ones (the first chapters of eight books) not looked at while building.
    ("a-christmas-carol", "what happens in a chapter", "What happens in Stave I?",
     r"Marley|chains?\b|apparition|spectre|Ghost"
     r"&&nephew|gentlem[ae]n|clerk|counting-house|Merry Christmas|humbug|knocker"),
    ("a-christmas-carol", "what happens in a chapter", "What happens in Stave II?",
     r"Fezziwig|school|\bFan\b|sister|apprentice&&idol|release|contract|dowerless|mourning-dress|another idol|Belle"),
    ("a-christmas-carol", "what happens in a chapter", "What happens in Stave III?",
     r"Cratchit|Tiny Tim|pudding|goose&&nephew|Fred|Ignorance|Want|Yes and No|niece"),
    ("a-christmas-carol", "what happens in a chapter", "What happens in Stave IV?",
     r"\bJoe\b|bed-curtains|curtains|plunder|rag|dead man|dead|corpse|covered thing"
     r"&&grave|stone|churchyard|EBENEZER|Tiny Tim"),
    ("a-christmas-carol", "what happens in a chapter", "What happens in Stave V?",
     r"turkey|poulterer&&salary|Bob|nephew|Fred|dinner|second father|bedpost|Christmas Day"),
    ("the-call-of-the-wild", "what happens in a chapter", "What happens in Chapter 1?",
     r"Manuel|gardener|sold|stolen|kidnap|rope&&club|red sweater|beaten|Perrault|Fran[cç]ois|express"),
    ("the-call-of-the-wild", "what happens in a chapter", "What happens in Chapter 2?",
     r"Curly&&snow|harness|sled|Spitz|hole"),
    ("the-call-of-the-wild", "what happens in a chapter", "What happens in Chapter 3?",
     r"Spitz&&fight|kill|dead|circle|leader|rabbit|snowshoe"),
    ("the-call-of-the-wild", "what happens in a chapter", "What happens in Chapter 5?",
     r"\bHal\b|Charles|Mercedes&&Thornton|\bice\b|club|starv"),
    ("the-call-of-the-wild", "what happens in a chapter", "What happens in Chapter 6?",
     r"rapids|current|rope|river&&thousand|sled|wager|bet|Matthewson|pull"),
    ("the-call-of-the-wild", "what happens in a chapter", "What happens in Chapter 7?",
     r"Yeehat|wolf|wolves|pack&&Thornton"),
    ("the-hound-of-the-baskervilles", "what happens in a chapter", "What happens in Chapter 2?",
     r"Hugo|manuscript|legend|curse&&hound"),
    ("the-hound-of-the-baskervilles", "what happens in a chapter", "What happens in Chapter 14?",
     r"hound|beast|creature&&shot|fired|revolver|bound|tied|Mrs\. Stapleton|wife"),
    ("persuasion", "what happens in a chapter", "What happens in Chapter 1?",
     r"Baronetage|Sir Walter&&Anne|Elizabeth|Mary|heir|Mr Elliot|vanity"),
    ("persuasion", "what happens in a chapter", "What happens in Chapter 12?",
     r"Louisa&&Cobb|fell|fall|jump|lifeless|steps"),
    ("persuasion", "what happens in a chapter", "What happens in Chapter 23?",
     r"letter|pen\b|pierce my soul&&Harville|constan|loving longest|women"),
    ("a-study-in-scarlet", "what happens in a chapter (held out)", "What happens in Chapter 1?",
     r"Afghanistan|wounded|Jezail|Maiwand|Netley&&Stamford|Holmes|rooms|laboratory|hospital"),
    ("the-sign-of-the-four", "what happens in a chapter (held out)", "What happens in Chapter 1?",
     r"cocaine|seven-per-cent|needle|syringe&&watch|brother|Morstan"),
    ("the-invisible-man", "what happens in a chapter (held out)", "What happens in Chapter 1?",
     r"Mrs\. Hall|Coach and Horses|Iping&&bandage|goggles|stranger|muffled|spectacles"),
    ("little-women", "what happens in a chapter (held out)", "What happens in Chapter 1?",
     r"presents|Christmas&&letter|Father|Marmee|Pilgrim"),
    ("tarzan-of-the-apes", "what happens in a chapter (held out)", "What happens in Chapter 1?",
     r"Clayton|Greystoke|Alice&&mutin|Fuwalda|sailor|captain|ship"),
    ("the-railway-children", "what happens in a chapter (held out)", "What happens in Chapter 1?",
     r"Father&&country|cottage|Three Chimneys|poor|move"),
    ("the-prisoner-of-zenda", "what happens in a chapter (held out)", "What happens in Chapter 1?",
     r"red hair|nose|Elphberg&&Rose|Ruritania|coronation|travel"),
    ("black-beauty", "what happens in a chapter (held out)", "What happens in Chapter 1?",
     r"mother|Duchess&&kick|bite|gentle|manners|meadow|pond"),
    # What the book is about (its outline): each of two patterns, joined by "&&", must be held by a quoted line.
    # Written before building; the "held out" ones not looked at while building.
    ("a-christmas-carol", "what the book is about", "What is this book about?",
     r"Marley|Ghost|Spirit|Phantom"
     r"&&Cratchit|Tiny Tim|Fezziwig|nephew|Belle"),
    ("the-call-of-the-wild", "what the book is about", "What is the book about?",
     r"Judge Miller|Manuel|sold|stolen|Santa Clara"
     r"&&Thornton|wolf|wolves|Yeehat|Spitz"),
    ("the-hound-of-the-baskervilles", "what the book is about", "What is this novel about?",
     r"hound|curse|legend"
     r"&&Sir Henry|Stapleton|moor|Baskerville Hall"),
    ("persuasion", "what the book is about", "What is the book about?",
     r"Wentworth"
     r"&&Anne|Lady Russell|engagement|Kellynch"),
    ("black-beauty", "what the book is about", "What is this book about?",
     r"Ginger|Merrylegs|Birtwick|John Manly|Squire Gordon"
     r"&&cab|Jerry|London|sold|Earlshall|York"),
    ("tarzan-of-the-apes", "what the book is about", "What is the story about?",
     r"Clayton|Greystoke|Kala|\bapes?\b"
     r"&&Jane|Porter|D'Arnot"),
    ("the-railway-children", "what the book is about (held out)", "What is this book about?",
     r"Father"
     r"&&railway|train|station|Perks|old gentleman"),
    ("the-invisible-man", "what the book is about (held out)", "What is this book about?",
     r"invisible|Griffin|stranger|bandage"
     r"&&Kemp|Marvel|Iping"),
    ("the-prisoner-of-zenda", "what the book is about (held out)", "What is this book about?",
     r"King|Rudolf|Rassendyll"
     r"&&Flavia|Michael|Zenda|Rupert|Sapt"),
    ("a-study-in-scarlet", "what the book is about (held out)", "What is this book about?",
     r"Holmes|Drebber|Stangerson|Lestrade|Gregson"
     r"&&Jefferson Hope|Ferrier|Utah|Mormon|Salt Lake"),
    ("the-sign-of-the-four", "what the book is about (held out)", "What is this book about?",
     r"Morstan|Sholto|treasure"
     r"&&Small|Aurora|Tonga|Agra"),
    ("little-women", "what the book is about (held out)", "What is this book about?",
     r"Laurie|Brooke|Aunt March|Marmee"
     r"&&Meg|Beth|Amy"),
    # How the book ends: each of two patterns, joined by "&&", must be held by a quoted line. Written before
    # building; the "held out" ones not looked at while building.
    ("a-christmas-carol", "how the book ends", "How does the story end?",
     r"second father|did NOT die|keep Christmas well|good a friend"
     r"&&Tiny Tim"),
    ("the-call-of-the-wild", "how the book ends", "How does the book end?",
     r"pack|Ghost Dog|wolves"
     r"&&Yeehat|Thornton"),
    ("the-hound-of-the-baskervilles", "how the book ends", "How does the novel end?",
     r"Stapleton|Baskerville|Laura Lyons|Beryl"
     r"&&hound|motive|phosphor|estate"),
    ("persuasion", "how the book ends", "How does it end?",
     r"Wentworth"
     r"&&married|marriage|sailor's wife|engaged"),
    ("little-women", "how the book ends", "How does the book end?",
     r"Plumfield|Bhaer|school|boys"
     r"&&Marmee|mother|harvest|happy"),
    ("tarzan-of-the-apes", "how the book ends", "How does the story end?",
     r"mother was an ape|never knew|title|Greystoke"
     r"&&Jane|Clayton"),
    ("the-prisoner-of-zenda", "how the book ends (held out)", "How does the book end?",
     r"Flavia"
     r"&&King|ring|rose|Strelsau|Zenda"),
    ("the-railway-children", "how the book ends (held out)", "How does the story end?",
     r"Father|Daddy"
     r"&&home|station|train|Bobbie"),
    ("the-invisible-man", "how the book ends (held out)", "How does the book end?",
     r"Griffin|Invisible Man|body|naked"
     r"&&Marvel|books|landlord|inn"),
    ("a-study-in-scarlet", "how the book ends (held out)", "How does the story end?",
     r"Jefferson Hope|\bHope\b"
     r"&&died|aneurism|dead|higher|Tribunal"),
    ("the-sign-of-the-four", "how the book ends (held out)", "How does the story end?",
     r"Morstan|wife|engaged|married"
     r"&&Jones|credit|cocaine"),
    ("black-beauty", "how the book ends (held out)", "How does the book end?",
     r"Thoroughgood|Willie|Joe Green|old home|Ginger|Blomefield"
     r"&&troubles are all over|home|apple-trees"),
]


def answered(expected: str, stated: str | None, lines: list[str]) -> bool:
    """Whether the stated answer or one quoted line holds what is expected
    (each of its patterns joined by "&&", as one line or another)."""
    texts = [" ".join(text.split()) for text in [stated or "", *lines] if text]
    return all(any(re.search(pattern, text, re.I) for text in texts) for pattern in expected.split("&&"))


def _ms(seconds: list[float]) -> str:
    return f"{1000 * sum(seconds) / len(seconds):>30.0f}{1000 * max(seconds):>6.0f}"


def main() -> int:
    from engine.answer.evaluate import Question, sessions_by_book
    from engine.store import Library

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="print what was quoted for each question missed")
    parser.add_argument("--all", action="store_true", help="print what was quoted for every question")
    parser.add_argument("--kind", help="only the questions of kinds whose name holds this")
    args = parser.parse_args()
    books = corpus_books()
    if books is None:
        return 2
    paths = {slug: books / f"{slug}.txt" for slug, *_ in PROBES}
    paths = {slug: path if path.is_file() else books / "extra" / path.name for slug, path in paths.items()}
    questions = [Question(id=f"{kind}|{expected}", book_path=paths[slug], question=question)
                 for slug, kind, question, expected in PROBES if args.kind is None or args.kind in kind]
    hits: dict[str, list[bool]] = defaultdict(list)
    seconds: dict[str, list[float]] = defaultdict(list)  # each question's evidence, as the reader waits for it
    missed = []
    for _path, _indexer, session, book_questions in sessions_by_book(
            questions, Library(), progress=lambda line: print(line, file=sys.stderr)):
        for question in book_questions:
            kind, expected = question.id.split("|", 1)
            started = time.perf_counter()
            found = session.retrieve(question.question)
            seconds[kind].append(time.perf_counter() - started)
            lines = [line.text for line in session.digest(found)]
            hit = answered(expected, found.stated, lines)
            hits[kind].append(hit)
            if not hit or args.all:
                missed.append((("" if hit else "MISSED ") + question.question, found.stated, lines))
    print(f"{'kind':<24}{'answered':>10}{'evidence found in, ms: mean':>31}{'max':>6}")
    for kind, results in hits.items():
        print(f"{kind:<24}{sum(results):>5} / {len(results):<3}{_ms(seconds[kind])}")
    every = [hit for results in hits.values() for hit in results]
    print(f"{'all':<24}{sum(every):>5} / {len(every):<3} ({sum(every) / len(every):.0%})"
          f"{_ms([value for values in seconds.values() for value in values])[6:]}")
    if args.misses or args.all:
        for question, stated, lines in missed:
            print(f"\n{question}" + (f"\n  stated: {stated}" if stated else ""))
            for text in lines[:3]:
                print(f"  \u201c{text[:160]}\u201d")
    return 0


if __name__ == "__main__":
    sys.exit(main())
